-- PreToolUse (matcher Bash): before a shell command that failed earlier in
-- this agent's stream of the session (the same operation: command_subject),
-- the fix of that failure, when one is known and this agent has not been
-- told it. Text lookups only: no model, no vector search.
-- :stdin  Claude Code's payload: session_id, cwd, tool_name, tool_input,
--         tool_use_id, agent_id (inside a subagent), ...
-- :agent, :turn_id  the agent the call came from and its turn, when it is
--            not Claude Code (the runner binds 'codex' and Codex's turn):
--            every event stored says so; NULL: nothing is added
-- Prints the hook's JSON answer when there is something to say.
--
-- Claude Code places this context beside the command's result, after it
-- ran. When the failure's fix was known at the failure, the failure advice
-- told it, and this says nothing; it speaks when the fix became known
-- since (learned by another agent of the session, received from the team)
-- or the failure was not advised. What each agent was told is one record
-- for every hook: the 'advice' events, which name the fixes told.

-- One statement (compiling is most of a hook's SQL time): the fix to tell,
-- noted as an 'advice' event with its text, returned as the hook's answer.
WITH
-- The payload's few fields, parsed once.
p AS MATERIALIZED (
  SELECT coalesce(f ->> 0, 'unknown') AS session_id, redact_private(f ->> 1) AS cwd, f ->> 2 AS tool,
         redact_private(command_subject(f ->> 3)) AS subject, f ->> 4 AS agent_id, f ->> 5 AS tool_use_id
  FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.tool_input.command', '$.agent_id',
                            '$.tool_use_id') AS f)),

-- This agent's latest error of the session from a command of this subject
-- (idx_events_session_errors; p first, CROSS JOIN keeping it there).
failed AS MATERIALIZED (
  SELECT e.data ->> '$.error' AS error, e.data ->> '$.headline' AS headline
  FROM p CROSS JOIN main.events AS e ON e.session_id = p.session_id
  WHERE p.subject IS NOT NULL AND e.type = 'tool_error' AND e.data ->> '$.tool' IN ('Bash', 'PowerShell')
    AND coalesce(e.data ->> '$.agentId', '') = coalesce(p.agent_id, '') AND e.data ->> '$.subject' = p.subject
  ORDER BY e.ts DESC, e.id DESC
  LIMIT 1),

-- Its best fix that may be told to this agent now (tellable, the one
-- rule: not told to it in this session, not applied by it; this project's
-- first).
fix AS (
  SELECT t.uid, t.resolution, t.origin, t.elsewhere, failed.headline
  FROM failed
  JOIN main.error_kb AS kb ON kb.error_normalized = failed.error
  CROSS JOIN p
  JOIN tellable(kb.id, p.session_id, p.agent_id, project_identity(p.cwd)) AS t
  WHERE t.rank = 1)

INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', utc_now(), p.session_id, path_basename(p.cwd), p.cwd,
       json_patch(json_object('tool', p.tool, 'kind', 'bash', 'key', 'bash:' || p.subject,
                              'fixes', json_array(told.uid), 'agentId', p.agent_id, 'toolUseId', p.tool_use_id,
                              'text', told.text),
                  json_object('agent', :agent, 'turnId', :turn_id))
FROM (SELECT fix.uid, render_advice('bash', json_object(
        'headline', project_relative(fix.headline, p.cwd),
        'fix', fix.resolution, 'elsewhere', fix.elsewhere,
        'team', json(CASE WHEN fix.origin = 'team' THEN 'true' ELSE 'false' END))) AS text
      FROM fix, p) AS told, p
-- (nothing to say, nothing noted as told)
WHERE told.text IS NOT NULL
RETURNING json_object('hookSpecificOutput', json_object('hookEventName', 'PreToolUse',
                                                        'additionalContext', data ->> '$.text'));
