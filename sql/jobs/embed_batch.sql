-- One batch of the embedding job: embed the signatures of the next error_kb
-- rows that have no vector yet. `errkb embed` runs it until nothing is left; by hand:
--   .param set :after 0
--   .param set :batch 50
--   .read sql/jobs/embed_batch.sql      (repeat with :after = the last id)
--
-- :after  only rows with a larger id (so a row that cannot be embedded is
--         passed over, not retried forever, within one run)
-- :batch  rows per batch, at most 50
-- Prints: embedded|skipped|last id looked at (empty when nothing was left).
--
-- "Has a vector" is asked of vec_error_kb_rowids, the plain table in which
-- sqlite-vec (vendored, pinned) keeps the ids of vec_error_kb: a B-tree
-- lookup, where asking vec0 itself costs about 0.1 ms a row (1.3 s for
-- 10,000 rows).

CREATE TEMP TABLE IF NOT EXISTS embed_job_batch (error_kb_id INTEGER PRIMARY KEY, embedding BLOB);
DELETE FROM temp.embed_job_batch;

-- 0. Rows written by others (the original system, old versions) get their
--    signature: what the vector stage embeds and the text stages compare.
INSERT OR IGNORE INTO error_kb_signatures (error_kb_id, signature)
SELECT id, error_signature(translate_messages(coalesce(error_raw, error_normalized)))
FROM error_kb AS kb
WHERE id > :after AND NOT EXISTS (SELECT 1 FROM error_kb_signatures AS s WHERE s.error_kb_id = kb.id)
ORDER BY id
LIMIT :batch;

-- 1. Embed into a temporary table: the model runs without holding a write
--    lock on the database, so hooks writing meanwhile are not kept waiting.
WITH todo AS MATERIALIZED (
  SELECT id, CAST(coalesce(s.signature, kb.error_normalized) AS TEXT) AS text, row_number() OVER (ORDER BY id) - 1 AS i
  FROM error_kb AS kb LEFT JOIN error_kb_signatures AS s ON s.error_kb_id = kb.id
  WHERE id > :after
    AND NOT EXISTS (SELECT 1 FROM vec_error_kb_rowids AS v WHERE v.rowid = kb.id)
  ORDER BY id
  LIMIT :batch
)
INSERT INTO temp.embed_job_batch (error_kb_id, embedding)
SELECT todo.id, e.embedding
FROM todo
JOIN embed_batch((SELECT json_group_array(text) FROM (SELECT text FROM todo ORDER BY i))) AS e ON e.i = todo.i;

-- 2. Store the vectors in one short write. Rows another run stored in the
--    meantime are left as they are, so running twice never duplicates;
--    and only while the vectors stored are the model's (vector_model,
--    which `errkb embed` sets before its first batch), so that vectors of
--    two models never mix.
INSERT INTO vec_error_kb (error_kb_id, embedding)
SELECT error_kb_id, embedding FROM temp.embed_job_batch AS b
WHERE embedding IS NOT NULL
  AND (SELECT model FROM vector_model) = embed_model() ->> '$.model'
  AND NOT EXISTS (SELECT 1 FROM vec_error_kb_rowids AS v WHERE v.rowid = b.error_kb_id);
-- and as bits, for the vector stage's first pass (vector_bits.sql)
INSERT INTO vec_error_kb_bits (error_kb_id, embedding, vector)
SELECT error_kb_id, vec_quantize_binary(embedding), embedding FROM temp.embed_job_batch AS b
WHERE embedding IS NOT NULL
  AND (SELECT model FROM vector_model) = embed_model() ->> '$.model'
  AND NOT EXISTS (SELECT 1 FROM vec_error_kb_bits_rowids AS v WHERE v.rowid = b.error_kb_id);

SELECT count(embedding), count(*) - count(embedding), max(error_kb_id) FROM temp.embed_job_batch;
