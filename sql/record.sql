-- Record (or refresh) how an error was resolved: the UPSERT on error_kb, the
-- error's signature and the fix as one of its counted fixes (kb_learn,
-- sql/kb_learn.sql, does all of it, for every writer).
-- Parameters:
--   :error        the raw error text (normalised here into the key)
--   :resolution   JSON object: {"resolvedBy", "tool", "toolSequence", ...}
--   :resolved_by  tool that resolved it
--   :tool_sequence JSON array of tool names
--   :ts           ISO 8601 UTC time; defaults to now
-- No embedding is computed here: the batch job does that later. Secrets
-- in the error and the resolution are redacted before they are stored.
INSERT INTO kb_learn (ts, error_raw, resolution, resolved_by, tool_sequence)
VALUES (coalesce(:ts, utc_now()), redact_private(:error), redact_private(:resolution),
        :resolved_by, :tool_sequence);

SELECT id, error_normalized, use_count FROM error_kb WHERE error_normalized = normalize_error(redact_private(:error));
