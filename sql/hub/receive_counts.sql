-- A teammate's laptop's counts of a fix, as received: its running totals,
-- kept under its member and replica (team_counts). A count never goes
-- down (a stale resend changes nothing), and each is bounded. They rank a
-- fix only as one member more who learned it, was helped or saw it fail:
-- no number of rows or size of count lets one member outweigh another.
-- The fix is the one this machine names by the sender's uid (its content
-- gives the same uid), else the one that uid's member sent.
--   :hub_uid :member :replica :learned :sessions :advised :helped :failed
INSERT INTO main.team_counts (fix_id, member, replica, learned, sessions, advised, helped, failed)
SELECT coalesce((SELECT id FROM main.fixes WHERE uid = :hub_uid),
                (SELECT fix_id FROM main.team_fixes WHERE hub_uid = :hub_uid ORDER BY member = :member DESC LIMIT 1)),
       :member, :replica,
       max(0, min(CAST(:learned AS INTEGER), 1000000)), max(0, min(CAST(:sessions AS INTEGER), 1000000)),
       max(0, min(CAST(:advised AS INTEGER), 1000000)), max(0, min(CAST(:helped AS INTEGER), 1000000)),
       max(0, min(CAST(:failed AS INTEGER), 1000000))
WHERE NOT EXISTS (SELECT 1 FROM main.hub_removed_members WHERE member = :member)
  AND NOT EXISTS (SELECT 1 FROM main.hub_withdrawn WHERE hub_uid = :hub_uid AND member = :member)
  AND coalesce((SELECT id FROM main.fixes WHERE uid = :hub_uid),
               (SELECT fix_id FROM main.team_fixes WHERE hub_uid = :hub_uid LIMIT 1)) IS NOT NULL
ON CONFLICT(fix_id, member, replica) DO UPDATE SET
  learned = max(learned, excluded.learned), sessions = max(sessions, excluded.sessions),
  advised = max(advised, excluded.advised), helped = max(helped, excluded.helped),
  failed = max(failed, excluded.failed);
