-- A fix received from the hub, stored as a teammate's (origin 'team'):
-- redacted again and cut to size here, whatever the hub holds; an entry
-- or fix known here already stays as it is (the same uid, or the same
-- error, headline and fix). errkb sync runs it for each fix received.
--   :uid :project :error_key :signature :headline :resolution :ts
-- (:resolution is JSON; the caller has checked that it is, and its size)
CREATE TEMP TABLE received (uid, project, error_key, signature, headline, resolution, fix_key, ts);
INSERT INTO temp.received
SELECT :uid, substr(redact_private(redact_secrets(:project)), 1, 200),
       substr(redact_private(redact_secrets(:error_key)), 1, 400),
       substr(redact_private(redact_secrets(:signature)), 1, 1000),
       substr(redact_private(redact_secrets(:headline)), 1, 500),
       r.resolution, fix_key(r.resolution), :ts
FROM (SELECT CASE WHEN json_valid(redact_private(redact_secrets(:resolution)))
                  THEN json(redact_private(redact_secrets(:resolution))) END AS resolution) AS r
WHERE r.resolution IS NOT NULL AND json_type(r.resolution) = 'object'
  AND NOT EXISTS (SELECT 1 FROM main.retracted_fixes WHERE uid = :uid)
  AND NOT EXISTS (SELECT 1 FROM main.fixes WHERE uid = :uid);

INSERT INTO main.error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
SELECT ts, error_key, headline, resolution, resolution ->> '$.resolvedBy', resolution -> '$.toolSequence', 0
FROM temp.received WHERE error_key <> ''
ON CONFLICT(error_normalized) DO NOTHING;

INSERT INTO main.error_kb_signatures (error_kb_id, signature)
SELECT kb.id, r.signature FROM temp.received AS r JOIN main.error_kb AS kb ON kb.error_normalized = r.error_key
WHERE r.signature <> ''
ON CONFLICT(error_kb_id) DO NOTHING;

INSERT OR IGNORE INTO main.fixes (uid, error_kb_id, error_headline, resolution, fix_key, weak, origin, project, ts)
SELECT r.uid, kb.id, r.headline, r.resolution, r.fix_key, 0, 'team', r.project, r.ts
FROM temp.received AS r JOIN main.error_kb AS kb ON kb.error_normalized = r.error_key;

INSERT OR IGNORE INTO main.error_kb_files (file_name, error_kb_id)
SELECT f.value, kb.id
FROM temp.received AS r JOIN main.error_kb AS kb ON kb.error_normalized = r.error_key,
     json_each(kb_file_names(r.headline, r.resolution)) AS f;
