-- What agents applied themselves in this session: the fixes learned from
-- the session's errors (its id, its content), and whose error it was
-- (agent: '' for the main agent). tellable passes over a fix this agent
-- applied, by either (standing.rs). Compiled into the extension.
--   ?1 the session
-- Whose error it was is read only for the errors a fix was learned from
-- (a result column is computed after the joins): most of a session's
-- errors are not, and reading each one's data cost a long session's
-- every hook a third of what telling asked.
SELECT lf.id AS fix_id, lf.fix_key AS fix_key, coalesce(e.data ->> '$.agentId', '') AS agent
FROM main.events AS e
JOIN main.learned_errors AS l ON l.event_id = e.id
JOIN main.fixes AS lf ON lf.id = l.fix_id
WHERE e.session_id = ?1 AND e.type = 'tool_error'
