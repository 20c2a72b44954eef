-- A laptop of a hub made before members existed (schema 1) logged in as
-- :member and claimed what it sent then as 'replica:<its id>': it is that
-- member's from now on.
--   :replica :member
INSERT OR IGNORE INTO main.team_fixes (fix_id, member, hub_uid, ts)
SELECT fix_id, :member, hub_uid, ts FROM main.team_fixes WHERE member = 'replica:' || :replica;
DELETE FROM main.team_fixes WHERE member = 'replica:' || :replica;
INSERT INTO main.team_counts (fix_id, member, replica, learned, sessions, advised, helped, failed)
SELECT fix_id, :member, replica, learned, sessions, advised, helped, failed
FROM main.team_counts WHERE member = 'replica:' || :replica
ON CONFLICT(fix_id, member, replica) DO UPDATE SET
  learned = max(learned, excluded.learned), sessions = max(sessions, excluded.sessions),
  advised = max(advised, excluded.advised), helped = max(helped, excluded.helped),
  failed = max(failed, excluded.failed);
DELETE FROM main.team_counts WHERE member = 'replica:' || :replica;
