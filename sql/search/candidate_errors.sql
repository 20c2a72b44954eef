-- kb_search: the error_kb rows a stage found, as kb_search's first nine
-- columns, in its order; the three that are the fix's (its resolution,
-- uses and last use: NULL here) are filled from tellable (src/standing.rs,
-- search.rs `candidates`). Compiled into the extension.
--   ?1 the rows' ids (a JSON array)
SELECT kb.id, kb.ts, kb.error_normalized, kb.error_raw, NULL AS resolution, kb.resolved_by, kb.tool_sequence,
       NULL AS use_count, kb.last_used
FROM main.error_kb AS kb
WHERE kb.id IN (SELECT value FROM json_each(?1))
