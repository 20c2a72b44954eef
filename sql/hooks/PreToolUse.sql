-- PreToolUse (matcher Read|Edit|Write|Bash): a file's error history when
-- the agent reads or writes it; before a shell command related to this
-- session's last failed one, how that failure was fixed. Text lookups
-- only: no model, no vector search.
-- :stdin  Claude Code's payload: session_id, tool_name, tool_input,
--         tool_use_id, agent_id (inside a subagent), ...
-- Prints the hook's JSON answer when there is something to say.
--
-- Claude Code places this context beside the call's result, so it informs
-- the agent's next step, not this call. Claude Code requires a Read before
-- an edit of an existing file: the file's history arrives with its content.
-- Each agent (the main thread, each subagent: agent_id) hears a thing once
-- per session; what was said is noted as an 'advice' event.

-- One statement (compiling is most of a hook's SQL time): what to say, at
-- most one thing per call (a file's history, or a command's), noted as an
-- 'advice' event with its text, and returned as the hook's answer.
WITH
-- The payload's few fields, parsed once.
p AS MATERIALIZED (
  SELECT coalesce(f ->> 0, 'unknown') AS session_id, f ->> 1 AS cwd, f ->> 2 AS tool,
         path_basename(coalesce(f ->> 3, f ->> 4)) AS file_name,
         CASE WHEN f ->> 2 = 'Bash' THEN command_subject(f ->> 5) END AS subject,
         f ->> 6 AS agent_id, f ->> 7 AS tool_use_id
  FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.tool_input.file_path',
                            '$.tool_input.notebook_path', '$.tool_input.command', '$.agent_id',
                            '$.tool_use_id') AS f)),

-- What this agent was already told in this session (idx_events_session_advice).
-- (p comes first, CROSS JOIN keeping it there: the planner, knowing
-- nothing of its size, otherwise scanned whole tables. Compiling is most
-- of this script's time, so p is joined, not asked for each field.)
told AS (
  SELECT data ->> '$.key' AS key
  FROM p CROSS JOIN main.events AS e ON e.session_id = p.session_id
  WHERE e.type = 'advice' AND coalesce(e.data ->> '$.agentId', '') = coalesce(p.agent_id, '')),

-- What there is to say: past errors about this file (Read / Edit / Write /
-- NotebookEdit), or the error of this agent's last failed Bash command of
-- the session, when this command is related to it (the same program and
-- script or subcommand).
candidates AS (
  SELECT 'file:' || p.file_name AS key, f.error_kb_id AS id
  FROM p CROSS JOIN main.error_kb_files AS f ON f.file_name = p.file_name
  WHERE p.tool IN ('Read', 'Edit', 'Write', 'NotebookEdit')
  UNION ALL
  SELECT 'bash:' || kb.error_normalized, kb.id
  FROM (SELECT e.data ->> '$.error' AS error, e.data ->> '$.subject' AS subject, p.subject AS now_subject
        FROM p CROSS JOIN main.events AS e ON e.session_id = p.session_id
        WHERE p.tool = 'Bash' AND e.type = 'tool_error' AND e.data ->> '$.tool' = 'Bash'
          AND coalesce(e.data ->> '$.agentId', '') = coalesce(p.agent_id, '')
        ORDER BY e.ts DESC, e.id DESC LIMIT 1) AS last_error
  JOIN main.error_kb AS kb ON kb.error_normalized = last_error.error
  WHERE last_error.subject = last_error.now_subject),

-- Each with its fix (the seed's wording), unless this agent heard it
-- already: a file's two most recently used, a command's one.
lines AS (
  SELECT key,
         CASE WHEN key LIKE 'file:%'
              THEN '⚠️ 이 파일 관련 과거 에러: ' || error_normalized || char(10)
                   || CASE WHEN json_valid(resolution) AND json_type(resolution) = 'object'
                           THEN '   해결 방법: ' || coalesce(json_extract(resolution, '$.resolvedBy'), '')
                                || ' (' || coalesce(json_extract(resolution, '$.tool'), '') || ')'
                                || coalesce(char(10) || '   해결 경로: ' || steps, '')
                           ELSE '   해결 방법: ' || resolution END
              ELSE '💡 이 세션에서 Bash 에러 발생 이력: ' || error_normalized
                   || coalesce(char(10) || '   이전 해결 경로: ' || steps, '') END AS line
  FROM (SELECT c.key, kb.id, kb.error_normalized, kb.resolution, kb.last_used,
               -- the fix's steps "A → B", when it has any
               CASE WHEN json_valid(kb.resolution) AND json_type(kb.resolution, '$.toolSequence') = 'array'
                    THEN (SELECT group_concat(value, ' → ') FROM json_each(kb.resolution, '$.toolSequence'))
               END AS steps
        FROM candidates AS c
        JOIN main.error_kb AS kb ON kb.id = c.id
        WHERE kb.resolution IS NOT NULL
          AND c.key NOT IN (SELECT key FROM told WHERE key IS NOT NULL))
  ORDER BY last_used DESC, id DESC
  LIMIT 2)

INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), p.session_id, path_basename(p.cwd), p.cwd,
       json_object('tool', p.tool, 'key', a.key, 'agentId', p.agent_id, 'toolUseId', p.tool_use_id,
                   -- redacted again: a knowledge base written before
                   -- redaction, or by another program, may hold secrets
                   'text', redact_secrets(a.text))
FROM (SELECT key, group_concat(line, char(10)) AS text FROM lines GROUP BY key) AS a, p
RETURNING json_object('hookSpecificOutput', json_object('hookEventName', 'PreToolUse',
                                                        'additionalContext', data ->> '$.text'));
