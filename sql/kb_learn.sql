-- kb_learn: learning a fix, in one place for every writer. The hooks and
-- errkb record write `INSERT INTO kb_learn (...)`; kb_learn is a table of
-- the extension (src/learning/kb_learn.rs) that runs these statements,
-- compiled in, for each row inserted, with the row's columns as
-- parameters: the error_kb UPSERT the original system's readers know, the
-- signature, the fix among the error's fixes with its counts, the file
-- names the error concerns, and the error event it was learned from.
-- Needs the extension (normalize_error, error_signature, fix_uid …); the
-- original system never writes here.
--   :ts            ISO 8601 UTC time
--   :error_raw     the error as the tool printed it (redacted; the first
--                  500 characters are stored in error_kb)
--   :error_key     its normalize_error() key, computed when NULL
--   :signature     its error_signature(), computed when NULL
--   :headline      its identifying line with the values
--   :resolution    JSON object: resolvedBy, tool, toolSequence, command,
--                  commands, edits, writes, changed, …
--   :resolved_by   tool that resolved it
--   :tool_sequence JSON array of tool names
--   :weak          1 when nothing changed (a flaky retry): never advised
--   :project       the project folder it was learned in
--   :session_id    the session it was learned in (counts its sessions)
--   :event_id      the tool_error event it was learned from, when there is
--                  one; with :success_event_id and :steps (event ids)

-- A fix retracted here (errkb forget, or the team's owner) is never
-- learned again: neither the entry's latest fix nor the fix is written.
INSERT INTO main.error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
SELECT :ts, coalesce(:error_key, normalize_error(:error_raw)), substr(:error_raw, 1, 500),
       :resolution, :resolved_by, :tool_sequence, 1
WHERE NOT EXISTS (SELECT 1 FROM main.retracted_fixes
                  WHERE uid = fix_uid(coalesce(:error_key, normalize_error(:error_raw)),
                                      coalesce(:headline, error_headline(translate_messages(:error_raw)), ''),
                                      fix_key(:resolution)))
ON CONFLICT(error_normalized) DO UPDATE SET
  ts = excluded.ts, error_raw = excluded.error_raw, resolution = excluded.resolution,
  resolved_by = excluded.resolved_by, tool_sequence = excluded.tool_sequence,
  use_count = use_count + 1;

INSERT INTO main.error_kb_signatures (error_kb_id, signature)
SELECT id, coalesce(:signature, error_signature(translate_messages(:error_raw)))
FROM main.error_kb WHERE error_normalized = coalesce(:error_key, normalize_error(:error_raw))
ON CONFLICT(error_kb_id) DO UPDATE SET signature = excluded.signature;

INSERT INTO main.fixes (uid, error_kb_id, error_headline, resolution, fix_key, weak, project, ts)
SELECT fix_uid(kb.error_normalized, f.headline, f.key), kb.id, f.headline, :resolution, f.key,
       coalesce(:weak, 0), :project, :ts
FROM main.error_kb AS kb,
     (SELECT coalesce(:headline, error_headline(translate_messages(:error_raw)), '') AS headline,
             fix_key(:resolution) AS key) AS f
WHERE kb.error_normalized = coalesce(:error_key, normalize_error(:error_raw))
  AND NOT EXISTS (SELECT 1 FROM main.retracted_fixes WHERE uid = fix_uid(kb.error_normalized, f.headline, f.key))
ON CONFLICT(uid) DO UPDATE SET resolution = excluded.resolution, ts = excluded.ts;

-- The fix's counts on this machine: learned once more, and in one more
-- session unless it was learned in this one before.
INSERT INTO main.fix_counts (fix_id, replica, learned, sessions)
SELECT f.id, '', 1, 1
FROM main.fixes AS f JOIN main.error_kb AS kb ON kb.id = f.error_kb_id
WHERE kb.error_normalized = coalesce(:error_key, normalize_error(:error_raw))
  AND f.error_headline = coalesce(:headline, error_headline(translate_messages(:error_raw)), '')
  AND f.fix_key = fix_key(:resolution)
ON CONFLICT(fix_id, replica) DO UPDATE SET
  learned = learned + 1,
  sessions = sessions + NOT EXISTS (SELECT 1 FROM main.learned_errors AS l
                                    WHERE l.fix_id = fix_counts.fix_id AND l.session_id = :session_id);

INSERT OR IGNORE INTO main.error_kb_files (file_name, error_kb_id)
SELECT f.value, kb.id
FROM main.error_kb AS kb, json_each(kb_file_names(:error_raw, :resolution)) AS f
WHERE kb.error_normalized = coalesce(:error_key, normalize_error(:error_raw));

-- The project it was learned in (by identity: two clones are one project).
INSERT OR IGNORE INTO main.fix_projects (fix_id, project)
SELECT f.id, project_identity(:project)
FROM main.fixes AS f JOIN main.error_kb AS kb ON kb.id = f.error_kb_id
WHERE coalesce(:project, '') <> ''
  AND kb.error_normalized = coalesce(:error_key, normalize_error(:error_raw))
  AND f.error_headline = coalesce(:headline, error_headline(translate_messages(:error_raw)), '')
  AND f.fix_key = fix_key(:resolution);

-- The error event is learned: it is never learned again.
INSERT OR IGNORE INTO main.learned_errors (event_id, error_kb_id, fix_id, session_id, success_event_id, steps, ts)
SELECT :event_id, kb.id, f.id, :session_id, :success_event_id, :steps, :ts
FROM main.error_kb AS kb JOIN main.fixes AS f ON f.error_kb_id = kb.id
WHERE :event_id IS NOT NULL
  AND kb.error_normalized = coalesce(:error_key, normalize_error(:error_raw))
  AND f.error_headline = coalesce(:headline, error_headline(translate_messages(:error_raw)), '')
  AND f.fix_key = fix_key(:resolution);
