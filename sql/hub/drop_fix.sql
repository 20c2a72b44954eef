-- Remove a fix (by its uid here) with everything about it: after a
-- retraction, or when a teammate's fix lost every member that sent it and
-- this machine never learned or confirmed it itself.
--   :uid
DELETE FROM main.fix_counts WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.team_counts WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.team_fixes WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.team_standing WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.fix_projects WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.hub_sent WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
UPDATE main.learned_errors SET fix_id = NULL WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
-- the entry's latest fix, for the original system's readers, becomes the
-- next one it has, or none
UPDATE main.error_kb SET resolution = (
    SELECT f.resolution FROM main.fixes AS f
    WHERE f.error_kb_id = error_kb.id AND f.uid <> :uid ORDER BY f.ts DESC LIMIT 1)
WHERE id IN (SELECT error_kb_id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.fixes WHERE uid = :uid;
