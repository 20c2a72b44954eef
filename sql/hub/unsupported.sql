-- The uids of the team's fixes nobody stands behind any more: no member
-- sends or counts them as learned or helpful (their rows were withdrawn,
-- or their members removed), and this machine never learned or confirmed
-- them itself. errkb sync removes each (sql/hub/drop_fix.sql).
SELECT f.uid FROM main.fixes AS f
WHERE f.origin = 'team'
  AND NOT EXISTS (SELECT 1 FROM main.team_fixes AS t WHERE t.fix_id = f.id)
  AND NOT EXISTS (SELECT 1 FROM main.team_counts AS c WHERE c.fix_id = f.id AND (c.learned > 0 OR c.helped > 0))
  AND NOT EXISTS (SELECT 1 FROM main.fix_counts AS c WHERE c.fix_id = f.id AND (c.learned > 0 OR c.helped > 0));
