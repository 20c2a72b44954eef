-- SubagentStart: give a code-writing subagent this project's recent errors
-- (with their fixes) and the cached project rules. Text lookups only.
-- :stdin  Claude Code's payload: session_id, cwd, agent_type, ...
-- Prints the hook's JSON answer when there is something to say.
-- One statement, no staging tables: in a process that runs it once, creating
-- them cost more than the lookups themselves.

WITH
-- The project's 3 most recent errors (their identifying line, at most 200
-- characters), each with its fix when one is known.
errors AS (
  SELECT row_number() OVER (ORDER BY e.ts DESC, e.id DESC) AS n,
         '- ' || substr(replace(coalesce(nullif(e.headline, ''), e.error), char(10), ' '), 1, 200)
         || ' (' || coalesce(e.tool, '?') || ')'
         || coalesce(char(10) || '  해결: ' || substr(resolution_text(
              (SELECT resolution FROM main.error_kb WHERE error_normalized = e.error AND resolution IS NOT NULL)), 1, 150), '')
         AS line
  FROM (SELECT id, ts, data ->> '$.error' AS error, data ->> '$.headline' AS headline, data ->> '$.tool' AS tool
        FROM main.events
        WHERE project_path = json_extract(:stdin, '$.cwd') AND type = 'tool_error'
        ORDER BY ts DESC, id DESC LIMIT 3) AS e),

-- Up to 3 claude_md rules from the newest analysis (this project's or a
-- global one) of the last 48 hours.
rules AS (
  SELECT row_number() OVER () AS n, '- ' || coalesce(json_extract(s.value, '$.rule'), json_extract(s.value, '$.summary')) AS line
  FROM (SELECT analysis FROM main.analysis_cache
        WHERE (project = path_basename(json_extract(:stdin, '$.cwd')) OR project IS NULL OR project = '')
          AND ts >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-48 hours')
          AND json_valid(analysis)
        ORDER BY ts DESC LIMIT 1) AS a,
       json_each(a.analysis, '$.suggestions') AS s
  WHERE json_extract(s.value, '$.type') = 'claude_md'
    AND coalesce(json_extract(s.value, '$.project'), '') IN ('', path_basename(json_extract(:stdin, '$.cwd')))
    AND coalesce(json_extract(s.value, '$.rule'), json_extract(s.value, '$.summary')) IS NOT NULL
  LIMIT 3),

-- Both sections, each under its heading when it has lines, in order.
lines AS (
  SELECT 1 AS section, 0 AS n, '이 프로젝트의 최근 에러 패턴:' AS line WHERE EXISTS (SELECT 1 FROM errors)
  UNION ALL SELECT 1, n, line FROM errors
  UNION ALL SELECT 2, 0, '적용할 프로젝트 규칙:' WHERE EXISTS (SELECT 1 FROM rules)
  UNION ALL SELECT 2, n, line FROM rules),

-- The lines that fit in 500 characters with their newlines: the context is
-- cut at a line boundary, never inside a line.
fitting AS (
  SELECT section, n, line,
         sum(length(line) + 1) OVER (ORDER BY section, n ROWS UNBOUNDED PRECEDING) - 1 AS length_so_far
  FROM lines)

-- Which agents get this is decided by the hook's matcher (hook.rs: code
-- agents only), so other agents start no process at all.
SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'SubagentStart', 'additionalContext', redact_secrets(text)))
FROM (SELECT group_concat(line, char(10)) AS text
      FROM (SELECT line FROM fitting WHERE length_so_far <= 500 ORDER BY section, n))
WHERE text IS NOT NULL;
