-- Retract a fix (errkb forget, or a teammate's retraction received): it
-- is removed with its counts, and its uid kept so that it is never
-- received, sent or advised again. When the hub has the retraction
-- already, :sent is 1.
--   :uid :sent
INSERT INTO main.retracted_fixes (uid, ts, sent) VALUES (:uid, utc_now(), :sent)
ON CONFLICT(uid) DO UPDATE SET sent = max(sent, excluded.sent);
DELETE FROM main.fix_counts WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.hub_sent WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
UPDATE main.learned_errors SET fix_id = NULL WHERE fix_id IN (SELECT id FROM main.fixes WHERE uid = :uid);
-- the entry's latest fix, for the original system's readers, becomes the
-- next one it has, or none
UPDATE main.error_kb SET resolution = (
    SELECT f.resolution FROM main.fixes AS f
    WHERE f.error_kb_id = error_kb.id AND f.uid <> :uid ORDER BY f.ts DESC LIMIT 1)
WHERE id IN (SELECT error_kb_id FROM main.fixes WHERE uid = :uid);
DELETE FROM main.fixes WHERE uid = :uid;
