-- SessionEnd: how many knowledge-base entries still need a vector. The
-- runner starts the batch job (errkb embed) detached when any do, and
-- returns at once; it prints nothing. By hand: errkb embed.
SELECT count(*) FROM main.error_kb AS kb
WHERE NOT EXISTS (SELECT 1 FROM main.vec_error_kb AS v WHERE v.error_kb_id = kb.id);
