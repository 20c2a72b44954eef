-- kb_learn: learning a fix, in one place for every writer. The hooks and
-- errkb record write `INSERT INTO kb_learn (...)`; kb_learn is a table of
-- the extension (src/kb_learn.rs) that runs these statements, compiled
-- in, for each row inserted, with the row's columns as parameters. It
-- runs the SPEC §5 UPSERT on error_kb, then keeps the signature, the fix
-- (several per error, each counted) and the file names the error concerns.
-- Needs the extension (normalize_error, error_signature, kb_file_names);
-- the original system never writes here.
--   :ts           ISO 8601 UTC time
--   :error_raw    the error as the tool printed it (redacted; the first
--                 500 characters are stored in error_kb)
--   :error_key    its normalize_error() key (SPEC §5), computed when NULL
--   :signature    its error_signature(), computed when NULL
--   :headline     its identifying line with the values
--   :resolution   JSON object: resolvedBy, tool, toolSequence, ...
--   :resolved_by  tool that resolved it
--   :tool_sequence JSON array of tool names

INSERT INTO main.error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
VALUES (:ts, coalesce(:error_key, normalize_error(:error_raw)), substr(:error_raw, 1, 500),
        :resolution, :resolved_by, :tool_sequence, 1)
ON CONFLICT(error_normalized) DO UPDATE SET
  ts = excluded.ts, error_raw = excluded.error_raw, resolution = excluded.resolution,
  resolved_by = excluded.resolved_by, tool_sequence = excluded.tool_sequence,
  use_count = use_count + 1;

INSERT INTO main.error_kb_signatures (error_kb_id, signature)
SELECT id, coalesce(:signature, error_signature(translate_messages(:error_raw)))
FROM main.error_kb WHERE error_normalized = coalesce(:error_key, normalize_error(:error_raw))
ON CONFLICT(error_kb_id) DO UPDATE SET signature = excluded.signature;

INSERT INTO main.kb_fixes (error_kb_id, error_headline, resolution, fix_key, use_count, ts)
SELECT id, coalesce(:headline, error_headline(translate_messages(:error_raw)), ''), :resolution,
       fix_key(:resolution), 1, :ts
FROM main.error_kb WHERE error_normalized = coalesce(:error_key, normalize_error(:error_raw))
ON CONFLICT(error_kb_id, error_headline, fix_key) DO UPDATE SET
  resolution = excluded.resolution, use_count = use_count + 1, ts = excluded.ts;

INSERT OR IGNORE INTO main.error_kb_files (file_name, error_kb_id)
SELECT f.value, kb.id
FROM main.error_kb AS kb, json_each(kb_file_names(:error_raw, :resolution)) AS f
WHERE kb.error_normalized = coalesce(:error_key, normalize_error(:error_raw));
