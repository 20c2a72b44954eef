-- What this agent was told in this session, by any hook: the fixes the
-- 'advice' events name (their uids), with each one's content (fix_key,
-- NULL for a fix no longer here). tellable passes over a fix told by
-- either (standing.rs). Compiled into the extension.
--   ?1 the session; ?2 the agent in it (NULL: the main agent)
SELECT t.value AS uid, tf.fix_key AS fix_key
FROM main.events AS e, json_each(e.data, '$.fixes') AS t
LEFT JOIN main.fixes AS tf ON tf.uid = t.value
WHERE e.session_id = ?1 AND e.type = 'advice'
  AND coalesce(e.data ->> '$.agentId', '') = coalesce(?2, '')
