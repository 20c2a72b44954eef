-- kb_search: the candidate fixes of one error_kb row. Compiled into the
-- extension. ?1: the row's id.
-- The error_kb columns in kb_search's order, with the fix's resolution and
-- uses where `fixes` has the row's fixes (error_kb's own for rows only an
-- old writer filled), then the fix's id, its original headline and time,
-- and how far it is trusted and how it ranks (fix_standing, the one rule:
-- whether it is advised; this machine's own first; the voices for it,
-- sessions and uses), its origin and its uid. One row per fix (the row
-- itself when it has none). The names are kb_search's
-- (tests/test_search.py checks them against it).
SELECT kb.id AS id, kb.ts AS ts, kb.error_normalized AS error_normalized, kb.error_raw AS error_raw,
       coalesce(f.resolution, kb.resolution) AS resolution, kb.resolved_by AS resolved_by,
       kb.tool_sequence AS tool_sequence,
       coalesce(s.uses, kb.use_count) AS use_count,
       coalesce(f.last_used, kb.last_used) AS last_used,
       f.id AS fix_id, coalesce(f.error_headline, '') AS headline, coalesce(f.ts, kb.ts) AS fix_ts,
       coalesce(s.advisable, 1) AS advisable, coalesce(s.own, 1) AS own, coalesce(s.support, 0) AS support,
       coalesce(s.sessions, 0) AS sessions,
       coalesce(f.origin, 'local') AS origin, f.uid AS fix_uid
FROM error_kb AS kb
LEFT JOIN fixes AS f ON f.error_kb_id = kb.id
LEFT JOIN fix_standing(f.id) AS s
WHERE kb.id = ?1 AND coalesce(f.resolution, kb.resolution) IS NOT NULL
