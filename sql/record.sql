-- Record (or refresh) how an error was resolved. SPEC §5 UPSERT.
-- Parameters:
--   :error        the raw error text (normalised here into the key)
--   :resolution   JSON object: {"resolvedBy", "tool", "toolSequence", ...}
--   :resolved_by  tool that resolved it
--   :tool_sequence JSON array of tool names
--   :ts           ISO 8601 UTC time; defaults to now
-- No embedding is computed here: the batch job does that later. Secrets
-- in the error and the resolution are redacted before they are stored.
INSERT INTO error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
VALUES (
  coalesce(:ts, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  normalize_error(redact_secrets(:error)),
  redact_secrets(:error),
  redact_secrets(:resolution),
  :resolved_by,
  :tool_sequence,
  1
)
ON CONFLICT(error_normalized) DO UPDATE SET
  ts = excluded.ts, error_raw = excluded.error_raw, resolution = excluded.resolution,
  resolved_by = excluded.resolved_by, tool_sequence = excluded.tool_sequence,
  use_count = use_count + 1
RETURNING id, error_normalized, use_count;

-- The file names it mentions, for the PreToolUse hook.
INSERT OR IGNORE INTO error_kb_files (file_name, error_kb_id)
SELECT f.value, kb.id
FROM error_kb AS kb,
     json_each(path_names(coalesce(kb.error_raw, '') || ' '
       || coalesce(CASE WHEN json_valid(kb.resolution) THEN json_extract(kb.resolution, '$.file') END, ''))) AS f
WHERE kb.error_normalized = normalize_error(redact_secrets(:error));
