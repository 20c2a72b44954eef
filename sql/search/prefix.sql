-- kb_search stage 2 (prefix). Compiled into the extension.
-- ?1: the query's first 30 characters; ?2: the same bytes followed by 0xFF;
-- ?3: the whole query; ?4: the minimum length ratio (0.7).
-- `error_normalized COLLATE NOCASE` in [?1, ?2) is "starts with ?1, ASCII
-- case-insensitively" (no UTF-8 text holds the byte 0xFF), a range search
-- on idx_error_kb_error_nocase; `%` and `_` in ?1 are plain characters.
SELECT id, ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count, last_used
FROM error_kb
WHERE error_normalized >= ?1 COLLATE NOCASE AND error_normalized < ?2 COLLATE NOCASE
  AND resolution IS NOT NULL
  AND length_ratio(?3, error_normalized) >= ?4
ORDER BY use_count DESC, ts DESC, id DESC
LIMIT 1
