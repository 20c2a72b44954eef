-- One batch of the embedding job's first step: vectors of vec_error_kb
-- that have no bits yet in vec_error_kb_bits (the vector stage's first
-- pass) get them: vectors stored before version 15, or by hand. Each
-- batch of embed_batch.sql then adds its own. `errkb embed` runs it until
-- nothing is left, each batch a short write of its own (at a million
-- vectors this takes minutes; hooks get in between).
--
-- :after  only ids above it
-- :batch  ids per batch
-- Prints: how many got bits|the last id looked at (empty when none was left:
-- the job then writes vector_bits_ready's row).
-- The ids are asked of the plain id tables sqlite-vec keeps (see
-- embed_batch.sql); each vector is then one lookup in vec_error_kb.

CREATE TEMP TABLE IF NOT EXISTS index_job_batch (id INTEGER PRIMARY KEY);
DELETE FROM temp.index_job_batch;

INSERT INTO temp.index_job_batch (id)
SELECT r.rowid FROM vec_error_kb_rowids AS r
WHERE r.rowid > :after
  AND NOT EXISTS (SELECT 1 FROM vec_error_kb_bits_rowids AS b WHERE b.rowid = r.rowid)
ORDER BY r.rowid
LIMIT :batch;

INSERT INTO vec_error_kb_bits (error_kb_id, embedding, vector)
SELECT v.error_kb_id, vec_quantize_binary(v.embedding), v.embedding
FROM temp.index_job_batch AS missing
CROSS JOIN vec_error_kb AS v ON v.error_kb_id = missing.id;

SELECT count(*), max(id) FROM temp.index_job_batch;
