-- A member the hub's owner removed: everything it sent or counted goes
-- from here too, and nothing of it is received again.
--   :member
INSERT OR IGNORE INTO main.hub_removed_members (member) VALUES (:member);
DELETE FROM main.team_counts WHERE member = :member;
DELETE FROM main.team_fixes WHERE member = :member;
