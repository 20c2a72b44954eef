-- A member's copy of a fix withdrawn on the hub (its retraction, or its
-- row deleted there): what that member sent and counted of it goes. The
-- fix itself stays while another member, or this machine, stands behind
-- it (errkb sync then drops the team's fixes nobody does:
-- sql/hub/unsupported.sql). A retraction for everyone (by the hub's
-- owner, :member '') is sql/hub/retract.sql instead.
-- Kept in hub_withdrawn only for a copy held here: a member may withdraw
-- any number of uids, and the hub refuses that copy's return anyway.
--   :hub_uid :member
INSERT OR IGNORE INTO main.hub_withdrawn (hub_uid, member)
SELECT :hub_uid, :member
WHERE EXISTS (SELECT 1 FROM main.team_fixes WHERE hub_uid = :hub_uid AND member = :member);
DELETE FROM main.team_counts
WHERE member = :member
  AND fix_id IN (SELECT fix_id FROM main.team_fixes WHERE hub_uid = :hub_uid AND member = :member
                 UNION SELECT id FROM main.fixes WHERE uid = :hub_uid);
DELETE FROM main.team_fixes WHERE hub_uid = :hub_uid AND member = :member;
