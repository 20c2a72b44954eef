-- A fix retracted here: `errkb forget` (sent to the hub at the next sync,
-- :sent 0), or a retraction for everyone received from the hub's owner
-- (:sent 1). Its uid is kept, so that it is never learned, sent, received
-- or advised again; sql/hub/drop_fix.sql then removes it.
--   :uid :sent
INSERT INTO main.retracted_fixes (uid, ts, sent) VALUES (:uid, utc_now(), :sent)
ON CONFLICT(uid) DO UPDATE SET sent = max(sent, excluded.sent);
