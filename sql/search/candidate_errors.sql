-- kb_search: the error_kb rows a stage found, for the candidates made of
-- them and of their fixes that may be told (tellable, src/standing.rs;
-- search.rs puts the two together, in tellable's order). Compiled into
-- the extension.
--   ?1 the rows' ids (a JSON array)
SELECT kb.id, kb.ts, kb.error_normalized, kb.error_raw, kb.resolved_by, kb.tool_sequence, kb.last_used
FROM main.error_kb AS kb
WHERE kb.id IN (SELECT value FROM json_each(?1))
