-- The embedding job's first step: every vector of vec_error_kb gets its
-- bits in vec_error_kb_bits, the vector stage's first pass (vectors stored
-- before version 15, or by hand). Each batch of the job then adds its own.
-- When none has bits yet, all are read in one pass over vec_error_kb;
-- after that, only the ids missing (asked of the plain id tables
-- sqlite-vec keeps: see embed_batch.sql) are looked up one by one.
INSERT INTO vec_error_kb_bits (error_kb_id, embedding, vector)
SELECT error_kb_id, vec_quantize_binary(embedding), embedding FROM vec_error_kb
WHERE NOT EXISTS (SELECT 1 FROM vec_error_kb_bits_rowids);

INSERT INTO vec_error_kb_bits (error_kb_id, embedding, vector)
SELECT v.error_kb_id, vec_quantize_binary(v.embedding), v.embedding
FROM (SELECT r.rowid AS id FROM vec_error_kb_rowids AS r
      WHERE NOT EXISTS (SELECT 1 FROM vec_error_kb_bits_rowids AS b WHERE b.rowid = r.rowid)) AS missing
CROSS JOIN vec_error_kb AS v ON v.error_kb_id = missing.id;
