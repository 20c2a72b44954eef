-- fix_standing(fix_id): what a fix's standing is made of, for the rule in
-- src/standing.rs (`Counts::standing`) to weigh. Compiled into the
-- extension. ?1: the fix's id.
--   weak                 the same command passed with nothing changed
--   learned … advised    this machine's counts (fix_counts, replica ''):
--                        all NULL when it has none
--   votes_for … users    the team's (team_standing, which errkb sync makes
--                        from what the hub says, one voice per member
--                        whatever its numbers): all NULL when none
-- The columns are tellable.sql's from `weak` on, in its order.
SELECT f.weak, c.learned, c.helped, c.failed, c.sessions, c.advised,
       t.votes_for, t.votes_against, t.members, t.users
FROM main.fixes AS f
LEFT JOIN main.fix_counts AS c ON c.fix_id = f.id AND c.replica = ''
LEFT JOIN main.team_standing AS t ON t.fix_id = f.id
WHERE f.id = ?1
