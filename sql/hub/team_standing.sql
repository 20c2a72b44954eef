-- What the team says of each fix (team_standing), made again from what
-- was received: each member one voice, whatever its rows or numbers. For
-- a fix when the member sent it, learned it or was helped by it; against
-- it when it failed the member more often than that. errkb sync runs it
-- after receiving.
DELETE FROM main.team_standing;
INSERT INTO main.team_standing (fix_id, votes_for, votes_against, members, users)
SELECT fix_id, sum(verdict = 1), sum(verdict = -1), count(*), sum(used)
FROM (SELECT fix_id,
             -- (a member that sent a fix learned it: its counts say so too)
             CASE WHEN sum(failed) > max(max(sent), sum(learned)) + sum(helped) THEN -1
                  WHEN max(max(sent), sum(learned)) + sum(helped) > 0 THEN 1 ELSE 0 END AS verdict,
             max(max(sent), sum(learned)) + sum(advised) > 0 AS used
      FROM (SELECT fix_id, member, 1 AS sent, 0 AS learned, 0 AS advised, 0 AS helped, 0 AS failed
            FROM main.team_fixes
            UNION ALL
            SELECT fix_id, member, 0, learned, advised, helped, failed FROM main.team_counts)
      GROUP BY fix_id, member)
GROUP BY fix_id;
