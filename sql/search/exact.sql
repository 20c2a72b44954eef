-- kb_search stage 1 (exact). Compiled into the extension.
-- ?1: the normalised query. Uses the unique index idx_error_kb_error.
SELECT id, ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count, last_used
FROM error_kb
WHERE error_normalized = ?1 AND resolution IS NOT NULL
ORDER BY use_count DESC, ts DESC, id DESC
LIMIT 1
