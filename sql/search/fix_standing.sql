-- fix_standing(fix_id): how far a fix is to be trusted, and how it ranks.
-- The one place the rule is written: kb_search and every hook read it.
-- Compiled into the extension. ?1: the fix's id.
--
-- This machine's own experience is one voice (fix_counts, replica ''),
-- each teammate one more (team_standing, which errkb sync makes from what
-- the hub says, one voice per member whatever its numbers). A fix is
-- advised while no more voices are against it than for it, never when
-- weak (the same command passed with nothing changed), and never here once
-- it failed here more often than it worked. So no one member can bury a
-- fix another stands behind, or raise its own above this machine's.
--   own       this machine learned it or was helped by it
--   support   voices for it; against: voices against it
--   sessions  distinct sessions it was learned in here, and each teammate
--             that learned it
--   uses      times it was learned or told here, and each teammate that did
-- The order, everywhere: own first, then support, sessions, uses, the
-- newest (kb_search puts how close the fix's original error is to the
-- query before all of them).
SELECT fix_id, own, support, against, sessions, uses,
       NOT weak AND NOT failed_here AND against <= support AS advisable
FROM (SELECT f.id AS fix_id, f.weak AS weak,
             coalesce(c.learned > 0 OR c.helped > 0, 0) AS own,
             coalesce(t.votes_for, 0)
               + coalesce(c.learned + c.helped > 0 AND c.failed <= c.learned + c.helped, 0) AS support,
             coalesce(c.failed > c.learned + c.helped, 0) AS failed_here,
             coalesce(t.votes_against, 0) + coalesce(c.failed > c.learned + c.helped, 0) AS against,
             coalesce(c.sessions, 0) + coalesce(t.members, 0) AS sessions,
             coalesce(c.learned + c.advised, 0) + coalesce(t.users, 0) AS uses
      FROM fixes AS f
      LEFT JOIN fix_counts AS c ON c.fix_id = f.id AND c.replica = ''
      LEFT JOIN team_standing AS t ON t.fix_id = f.id
      WHERE f.id = ?1)
