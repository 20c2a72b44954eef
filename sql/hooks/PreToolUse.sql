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

CREATE TEMP TABLE payload AS
SELECT coalesce(f ->> 0, 'unknown') AS session_id, f ->> 1 AS cwd, f ->> 2 AS tool,
       path_basename(coalesce(f ->> 3, f ->> 4)) AS file_name,
       CASE WHEN f ->> 2 = 'Bash' THEN command_subject(f ->> 5) END AS subject,
       f ->> 6 AS agent_id, f ->> 7 AS tool_use_id
FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.tool_input.file_path',
                          '$.tool_input.notebook_path', '$.tool_input.command', '$.agent_id',
                          '$.tool_use_id') AS f);

CREATE TEMP TABLE answer AS
WITH
-- What this agent was already told in this session ("+type": read the
-- session's events through idx_events_session, never all advice).
told AS (
  SELECT data ->> '$.key' AS key
  FROM main.events, temp.payload AS p
  WHERE events.session_id = p.session_id AND +events.type = 'advice'
    AND coalesce(data ->> '$.agentId', '') = coalesce(p.agent_id, '')),

-- Fixes, with their steps "A → B" (NULL when there are none, or the fix
-- is not JSON). Inlined where used, never computed for the whole table.
fix AS NOT MATERIALIZED (
  SELECT id, error_normalized, resolution, last_used,
         json_valid(resolution) AND json_type(resolution) = 'object' AS is_json,
         CASE WHEN json_valid(resolution) AND json_type(resolution, '$.toolSequence') = 'array'
              THEN (SELECT group_concat(value, ' → ') FROM json_each(resolution, '$.toolSequence')) END AS steps
  FROM main.error_kb
  WHERE resolution IS NOT NULL),

-- Read / Edit / Write / NotebookEdit: up to 2 past errors about this file,
-- most recently used first, unless this agent already heard of the file.
file_warnings AS (
  SELECT 'file:' || p.file_name AS key,
         '⚠️ 이 파일 관련 과거 에러: ' || fix.error_normalized || char(10)
         || CASE WHEN fix.is_json
                 THEN '   해결 방법: ' || coalesce(json_extract(fix.resolution, '$.resolvedBy'), '')
                      || ' (' || coalesce(json_extract(fix.resolution, '$.tool'), '') || ')'
                      || coalesce(char(10) || '   해결 경로: ' || fix.steps, '')
                 ELSE '   해결 방법: ' || fix.resolution END AS line
  FROM temp.payload AS p
  JOIN main.error_kb_files AS f ON f.file_name = p.file_name
  JOIN fix ON fix.id = f.error_kb_id
  WHERE p.tool IN ('Read', 'Edit', 'Write', 'NotebookEdit')
    AND 'file:' || p.file_name NOT IN (SELECT key FROM told WHERE key IS NOT NULL)
  ORDER BY fix.last_used DESC, fix.id DESC
  LIMIT 2),

-- Bash: this agent's latest Bash error of the session, when this command
-- is related to the one that failed (the same program and script or
-- subcommand) and the knowledge base knows its fix; once per error.
last_bash_error AS (
  SELECT data ->> '$.error' AS error, data ->> '$.subject' AS subject
  FROM main.events, temp.payload AS p
  WHERE events.session_id = p.session_id AND +events.type = 'tool_error'
    AND data ->> '$.tool' = 'Bash' AND coalesce(data ->> '$.agentId', '') = coalesce(p.agent_id, '')
  ORDER BY ts DESC, id DESC LIMIT 1),
session_warning AS (
  SELECT 'bash:' || fix.error_normalized AS key,
         '💡 이 세션에서 Bash 에러 발생 이력: ' || fix.error_normalized
         || coalesce(char(10) || '   이전 해결 경로: ' || fix.steps, '') AS line
  FROM temp.payload AS p, last_bash_error AS e
  JOIN fix ON fix.error_normalized = e.error
  WHERE p.tool = 'Bash' AND e.subject = p.subject
    AND 'bash:' || fix.error_normalized NOT IN (SELECT key FROM told WHERE key IS NOT NULL)
  LIMIT 1)

SELECT key, group_concat(line, char(10)) AS text
FROM (SELECT key, line FROM file_warnings UNION ALL SELECT key, line FROM session_warning)
GROUP BY key;

-- What was said, so that it is said once.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), p.session_id, path_basename(p.cwd), p.cwd,
       json_object('tool', p.tool, 'key', a.key, 'agentId', p.agent_id, 'toolUseId', p.tool_use_id)
FROM temp.answer AS a, temp.payload AS p;

SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'PreToolUse',
                                                     'additionalContext', redact_secrets(text)))
FROM (SELECT group_concat(text, char(10)) AS text FROM temp.answer)
WHERE text IS NOT NULL;
