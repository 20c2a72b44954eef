-- A teammate's counts of a fix, as received: their running totals, kept
-- under their replica's id. A count never goes down (a stale resend
-- changes nothing); the fix's count is the sum of its replicas' rows.
-- Each count is bounded (a hostile hub cannot make one fix outweigh all).
--   :uid :replica :learned :sessions :advised :helped :failed
INSERT INTO main.fix_counts (fix_id, replica, learned, sessions, advised, helped, failed)
SELECT f.id, :replica, max(0, min(CAST(:learned AS INTEGER), 1000000)), max(0, min(CAST(:sessions AS INTEGER), 1000000)),
       max(0, min(CAST(:advised AS INTEGER), 1000000)), max(0, min(CAST(:helped AS INTEGER), 1000000)), max(0, min(CAST(:failed AS INTEGER), 1000000))
FROM main.fixes AS f
WHERE f.uid = :uid AND :replica <> ''
ON CONFLICT(fix_id, replica) DO UPDATE SET
  learned = max(learned, excluded.learned), sessions = max(sessions, excluded.sessions),
  advised = max(advised, excluded.advised), helped = max(helped, excluded.helped),
  failed = max(failed, excluded.failed);
