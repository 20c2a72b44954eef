-- kb_search: the candidate fixes of the error_kb rows a stage found, as
-- the one rule says they may be told (tellable: advised, not told to this
-- agent in this session, not applied by it, best first). Compiled into
-- the extension.
--   ?1 the rows' ids (a JSON array); ?2 the session, ?3 the agent, ?4 the
--   project's identity (NULL when kb_search was not given them)
-- The error_kb columns in kb_search's order, with the fix's resolution and
-- uses, then the fix's id, its original headline and time, its rank among
-- all the candidates (tellable's), whether it was learned in this project
-- (and where else, when not), its origin, uid and content key. The names
-- are kb_search's (tests/test_search.py checks them against it).
SELECT kb.id AS id, kb.ts AS ts, kb.error_normalized AS error_normalized, kb.error_raw AS error_raw,
       t.resolution AS resolution, kb.resolved_by AS resolved_by, kb.tool_sequence AS tool_sequence,
       t.uses AS use_count, coalesce(f.last_used, kb.last_used) AS last_used,
       t.fix_id AS fix_id, coalesce(t.headline, '') AS headline, coalesce(t.ts, kb.ts) AS fix_ts,
       t.rank AS rank, t.this_project AS this_project, t.elsewhere AS elsewhere,
       t.origin AS origin, t.uid AS fix_uid, t.fix_key AS fix_key
FROM tellable(?1, ?2, ?3, ?4) AS t
JOIN error_kb AS kb ON kb.id = t.error_kb_id
LEFT JOIN fixes AS f ON f.id = t.fix_id
ORDER BY t.rank
LIMIT 200
