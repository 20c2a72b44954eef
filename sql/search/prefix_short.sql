-- kb_search stage 2 (prefix), for queries shorter than 30 characters: the
-- whole query is the prefix. Compiled into the extension.
-- ?1: the query; ?2: the query's bytes followed by 0xFF;
-- ?3: the minimum length ratio (0.7).
-- A row starting with ?1 has a 30-character head starting with ?1, so the
-- head, under NOCASE, lies in [?1, ?1 || 0xFF) (no UTF-8 text holds the
-- byte 0xFF): a range search on idx_error_kb_prefix.
SELECT id, ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count, last_used
FROM error_kb
WHERE substr(error_normalized, 1, 30) >= ?1 COLLATE NOCASE
  AND substr(error_normalized, 1, 30) < ?2 COLLATE NOCASE
  AND resolution IS NOT NULL
  AND length_ratio(?1, error_normalized) >= ?3
ORDER BY use_count DESC, ts DESC, id DESC
LIMIT 1
