-- kb_learn: learning a fix, in one place for every writer. TEMP objects
-- of the connection: the extension makes them when it is loaded (`.load
-- ./errkb`), errkb's runner when a script names kb_learn. They call the
-- extension's functions, so they are of no use without it. Kept out of the
-- database file, they cost nothing to a connection that never learns (in
-- the file, the trigger was a third of the schema every hook parsed).
--
-- The hooks and errkb record write here:
-- `INSERT INTO kb_learn (...)` runs the SPEC §5 UPSERT on error_kb, then
-- keeps the signature, the fix (several per error, each counted) and the
-- file names the error concerns. Needs the extension (normalize_error,
-- error_signature, path_names); the original system never writes here.
--   error_raw   the error as the tool printed it (redacted; the first 500
--               characters are stored in error_kb)
--   error_key   its normalize_error() key (SPEC §5), computed when NULL
--   signature   its error_signature(), computed when NULL
--   headline    its identifying line with the values
CREATE TEMP VIEW IF NOT EXISTS kb_learn (ts, error_raw, error_key, signature, headline, resolution, resolved_by,
                                    tool_sequence) AS
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL;

CREATE TEMP TRIGGER IF NOT EXISTS kb_learn_insert INSTEAD OF INSERT ON kb_learn
BEGIN
  INSERT INTO error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
  VALUES (new.ts, coalesce(new.error_key, normalize_error(new.error_raw)), substr(new.error_raw, 1, 500),
          new.resolution, new.resolved_by, new.tool_sequence, 1)
  ON CONFLICT(error_normalized) DO UPDATE SET
    ts = excluded.ts, error_raw = excluded.error_raw, resolution = excluded.resolution,
    resolved_by = excluded.resolved_by, tool_sequence = excluded.tool_sequence,
    use_count = use_count + 1;

  INSERT INTO error_kb_signatures (error_kb_id, signature)
  SELECT id, coalesce(new.signature, error_signature(translate_messages(new.error_raw)))
  FROM error_kb WHERE error_normalized = coalesce(new.error_key, normalize_error(new.error_raw))
  ON CONFLICT(error_kb_id) DO UPDATE SET signature = excluded.signature;

  INSERT INTO kb_fixes (error_kb_id, error_headline, resolution, fix_key, use_count, ts)
  SELECT id, coalesce(new.headline, error_headline(translate_messages(new.error_raw)), ''), new.resolution,
         fix_key(new.resolution), 1, new.ts
  FROM error_kb WHERE error_normalized = coalesce(new.error_key, normalize_error(new.error_raw))
  ON CONFLICT(error_kb_id, error_headline, fix_key) DO UPDATE SET
    resolution = excluded.resolution, use_count = use_count + 1, ts = excluded.ts;

  INSERT OR IGNORE INTO error_kb_files (file_name, error_kb_id)
  SELECT f.value, kb.id
  FROM error_kb AS kb, json_each(kb_file_names(new.error_raw, new.resolution)) AS f
  WHERE kb.error_normalized = coalesce(new.error_key, normalize_error(new.error_raw));
END;
