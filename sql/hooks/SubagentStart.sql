-- SubagentStart: give a code-writing subagent this project's recent errors
-- (with their fixes) and the cached project rules. Text lookups only.
-- :stdin  Claude Code's payload: session_id, cwd, agent_type, ...
-- Prints the hook's JSON answer when there is something to say.
-- One statement, no staging tables: in a process that runs it once, creating
-- them cost more than the lookups themselves.

WITH
-- The project's 3 most recent errors, each with its fix when one is known.
errors AS (
  SELECT '- ' || e.error || ' (' || coalesce(e.tool, '?') || ')'
         || coalesce(char(10) || '  해결: ' || substr(resolution_text(
              (SELECT resolution FROM main.error_kb WHERE error_normalized = e.error AND resolution IS NOT NULL)), 1, 150), '')
         AS line
  FROM (SELECT json_extract(data, '$.error') AS error, json_extract(data, '$.tool') AS tool
        FROM main.events
        WHERE project_path = json_extract(:stdin, '$.cwd') AND type = 'tool_error'
        ORDER BY ts DESC, id DESC LIMIT 3) AS e),

-- Up to 3 claude_md rules from the newest analysis (this project's or a
-- global one) of the last 48 hours.
rules AS (
  SELECT '- ' || coalesce(json_extract(s.value, '$.rule'), json_extract(s.value, '$.summary')) AS line
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

-- MATERIALIZED: built once; inlined, each use below would build both
-- sections again.
sections AS MATERIALIZED (
  SELECT '이 프로젝트의 최근 에러 패턴:' || char(10) || (SELECT group_concat(line, char(10)) FROM errors) AS errors,
         '적용할 프로젝트 규칙:' || char(10) || (SELECT group_concat(line, char(10)) FROM rules) AS rules)

-- Both sections, joined by a newline, cut to 500 characters.
SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'SubagentStart', 'additionalContext', redact_secrets(text)))
FROM (SELECT substr(coalesce(errors, '') || CASE WHEN errors IS NOT NULL AND rules IS NOT NULL THEN char(10) ELSE '' END
                    || coalesce(rules, ''), 1, 500) AS text
      FROM sections)
-- only for code agents, by substring: "oh-my-claudecode:executor-high" counts
WHERE EXISTS (SELECT 1 FROM json_each('["executor", "executor-low", "executor-high", "architect",
                "architect-medium", "designer", "designer-high", "build-fixer", "build-fixer-low"]')
              WHERE instr(coalesce(json_extract(:stdin, '$.agent_type'), ''), value) > 0)
  AND text <> '';
