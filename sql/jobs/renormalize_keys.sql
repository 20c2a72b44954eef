-- Recompute every error_kb key from error_raw with the current
-- normalize_error(): the original JavaScript code applied its
-- rules in another order, so its keys differ. Rows that now share a key are
-- merged without losing counts: the newest row's fix is kept, use_count is
-- the sum, last_used the latest. Vectors of changed rows are dropped (the
-- batch job makes them again). One transaction: all or nothing.
-- Prints: rows re-keyed|rows merged away.

BEGIN IMMEDIATE;

CREATE TEMP TABLE rekey AS
SELECT id, ts, use_count, last_used, error_normalized AS old_key,
       CASE WHEN error_raw IS NOT NULL AND normalize_error(error_raw) <> ''
            THEN normalize_error(error_raw) ELSE error_normalized END AS key
FROM error_kb;

-- Per key, the row that stays (newest) and the merged counts.
CREATE TEMP TABLE keep AS
SELECT key,
       (SELECT id FROM temp.rekey AS r WHERE r.key = g.key ORDER BY r.ts DESC, r.id DESC LIMIT 1) AS id,
       sum(coalesce(use_count, 0)) AS use_count,
       max(last_used) AS last_used
FROM temp.rekey AS g
GROUP BY key;

CREATE TEMP TABLE merged_away AS
SELECT r.id, k.id AS into_id FROM temp.rekey AS r JOIN temp.keep AS k USING (key) WHERE r.id <> k.id;

-- Whatever pointed at a merged row now points at the row that stays.
UPDATE learned_errors SET error_kb_id = (SELECT into_id FROM temp.merged_away WHERE id = learned_errors.error_kb_id)
WHERE error_kb_id IN (SELECT id FROM temp.merged_away);
INSERT OR IGNORE INTO error_kb_files (file_name, error_kb_id)
SELECT f.file_name, m.into_id FROM error_kb_files AS f JOIN temp.merged_away AS m ON m.id = f.error_kb_id;
DELETE FROM error_kb_files WHERE error_kb_id IN (SELECT id FROM temp.merged_away);
-- A merged row's fixes join the kept row's: one the kept row already has
-- (the same headline and fix) adds its counts to it and goes.
CREATE TEMP TABLE twin AS
SELECT m.id AS from_id, k.id AS into_id
FROM fixes AS m JOIN temp.merged_away AS a ON a.id = m.error_kb_id
JOIN fixes AS k ON k.error_kb_id = a.into_id AND k.error_headline = m.error_headline AND k.fix_key = m.fix_key;
INSERT INTO fix_counts (fix_id, replica, learned, sessions, advised, helped, failed)
SELECT t.into_id, c.replica, c.learned, c.sessions, c.advised, c.helped, c.failed
FROM fix_counts AS c JOIN temp.twin AS t ON t.from_id = c.fix_id
WHERE true
ON CONFLICT (fix_id, replica) DO UPDATE SET learned = learned + excluded.learned,
  sessions = sessions + excluded.sessions, advised = advised + excluded.advised,
  helped = helped + excluded.helped, failed = failed + excluded.failed;
UPDATE learned_errors SET fix_id = (SELECT into_id FROM temp.twin WHERE from_id = learned_errors.fix_id)
WHERE fix_id IN (SELECT from_id FROM temp.twin);
DELETE FROM fix_counts WHERE fix_id IN (SELECT from_id FROM temp.twin);
INSERT OR IGNORE INTO fix_projects (fix_id, project)
SELECT t.into_id, p.project FROM fix_projects AS p JOIN temp.twin AS t ON t.from_id = p.fix_id;
DELETE FROM fix_projects WHERE fix_id IN (SELECT from_id FROM temp.twin);
DELETE FROM fixes WHERE id IN (SELECT from_id FROM temp.twin);
UPDATE fixes SET error_kb_id = (SELECT into_id FROM temp.merged_away WHERE id = fixes.error_kb_id)
WHERE error_kb_id IN (SELECT id FROM temp.merged_away);
DELETE FROM error_kb_signatures WHERE error_kb_id IN (SELECT id FROM temp.merged_away);

DELETE FROM vec_error_kb
WHERE error_kb_id IN (SELECT id FROM temp.merged_away UNION SELECT id FROM temp.rekey WHERE key IS NOT old_key);
DELETE FROM vec_error_kb_bits
WHERE error_kb_id IN (SELECT id FROM temp.merged_away UNION SELECT id FROM temp.rekey WHERE key IS NOT old_key);
DELETE FROM error_kb WHERE id IN (SELECT id FROM temp.merged_away);

-- New keys in two steps: a row's new key may still be another row's old one.
UPDATE error_kb SET error_normalized = 'errkb-migrating:' || id
WHERE id IN (SELECT k.id FROM temp.keep AS k JOIN temp.rekey AS r ON r.id = k.id WHERE r.key IS NOT r.old_key);
UPDATE error_kb
SET error_normalized = (SELECT key FROM temp.keep WHERE keep.id = error_kb.id),
    use_count = (SELECT use_count FROM temp.keep WHERE keep.id = error_kb.id),
    last_used = (SELECT last_used FROM temp.keep WHERE keep.id = error_kb.id)
WHERE id IN (SELECT id FROM temp.keep);

-- A fix's uid is made of its error's key: the re-keyed rows' fixes get theirs.
UPDATE fixes SET uid = fix_uid((SELECT error_normalized FROM error_kb WHERE id = fixes.error_kb_id), error_headline, fix_key)
WHERE error_kb_id IN (SELECT k.id FROM temp.keep AS k JOIN temp.rekey AS r ON r.id = k.id WHERE r.key IS NOT r.old_key);

COMMIT;

SELECT (SELECT count(*) FROM temp.rekey WHERE key IS NOT old_key), (SELECT count(*) FROM temp.merged_away);
