-- kb_search stage 2 (prefix), for queries of 30 characters or more.
-- Compiled into the extension.
-- ?1: the query's first 30 characters; ?2: the whole query;
-- ?3: the minimum length ratio (0.7).
-- An equality on idx_error_kb_prefix, read in ORDER BY order: SQLite stops
-- at the first row that passes the length ratio. `=` under NOCASE folds
-- ASCII case only, as LIKE does, and `%` or `_` are plain characters.
SELECT id, ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count, last_used
FROM error_kb
WHERE substr(error_normalized, 1, 30) = ?1 COLLATE NOCASE
  AND resolution IS NOT NULL
  AND length_ratio(?2, error_normalized) >= ?3
ORDER BY use_count DESC, ts DESC, id DESC
LIMIT 1
