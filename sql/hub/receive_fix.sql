-- A fix a teammate sent, as received from the hub: untrusted. Redacted
-- again and cut to size here, whatever the hub holds (the caller has
-- checked its fields' types and sizes). It is named by its content here
-- (fix_uid of what is stored), not by the uid the sender gave it, so that
-- no member can pass off other content as someone else's fix; the member
-- who sent it is kept beside it (team_fixes), and a fix is ranked by how
-- many members sent or confirmed it. Stored with origin 'team' unless this
-- machine has it already. Nothing is stored of a member the owner removed,
-- a copy that member withdrew, or a fix retracted here.
--   :hub_uid :member :project :error_key :signature :headline :resolution :ts
CREATE TEMP TABLE received (hub_uid, member, uid, project, error_key, signature, headline, resolution, fix_key, ts);
INSERT INTO temp.received
SELECT :hub_uid, :member, fix_uid(c.error_key, c.headline, fix_key(c.resolution)), c.project, c.error_key,
       c.signature, c.headline, c.resolution, fix_key(c.resolution), :ts
FROM (SELECT substr(redact_private(:project), 1, 200) AS project,
             substr(redact_private(:error_key), 1, 400) AS error_key,
             substr(redact_private(:signature), 1, 1000) AS signature,
             substr(redact_private(:headline), 1, 500) AS headline,
             CASE WHEN json_valid(redact_private(:resolution)) THEN json(redact_private(:resolution)) END AS resolution
     ) AS c
WHERE c.resolution IS NOT NULL AND json_type(c.resolution) = 'object' AND c.error_key <> ''
  AND NOT EXISTS (SELECT 1 FROM main.hub_removed_members WHERE member = :member)
  AND NOT EXISTS (SELECT 1 FROM main.hub_withdrawn WHERE hub_uid = :hub_uid AND member = :member);
DELETE FROM temp.received
WHERE uid IN (SELECT uid FROM main.retracted_fixes) OR hub_uid IN (SELECT uid FROM main.retracted_fixes);

INSERT INTO main.error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
SELECT ts, error_key, headline, resolution, resolution ->> '$.resolvedBy', resolution -> '$.toolSequence', 0
FROM temp.received WHERE true
ON CONFLICT(error_normalized) DO NOTHING;

INSERT INTO main.error_kb_signatures (error_kb_id, signature)
SELECT kb.id, r.signature FROM temp.received AS r JOIN main.error_kb AS kb ON kb.error_normalized = r.error_key
WHERE r.signature <> ''
ON CONFLICT(error_kb_id) DO NOTHING;

INSERT OR IGNORE INTO main.fixes (uid, error_kb_id, error_headline, resolution, fix_key, weak, origin, project, ts)
SELECT r.uid, kb.id, r.headline, r.resolution, r.fix_key, 0, 'team', r.project, r.ts
FROM temp.received AS r JOIN main.error_kb AS kb ON kb.error_normalized = r.error_key;

-- the project the member sent it for (its remote: the project's identity)
INSERT OR IGNORE INTO main.fix_projects (fix_id, project)
SELECT f.id, r.project FROM temp.received AS r JOIN main.fixes AS f ON f.uid = r.uid WHERE r.project <> '';

INSERT OR IGNORE INTO main.team_fixes (fix_id, member, hub_uid, ts)
SELECT f.id, r.member, r.hub_uid, r.ts FROM temp.received AS r JOIN main.fixes AS f ON f.uid = r.uid;

INSERT OR IGNORE INTO main.error_kb_files (file_name, error_kb_id)
SELECT f.value, kb.id
FROM temp.received AS r JOIN main.error_kb AS kb ON kb.error_normalized = r.error_key,
     json_each(kb_file_names(r.headline, r.resolution)) AS f;
