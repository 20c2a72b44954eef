-- kb_search stage 3 (vector), once the embedding job has made the bits
-- (vec_error_kb_bits): the same answer as vector.sql in two passes.
-- First the ?3 nearest by Hamming distance between bit vectors (the sign
-- of each dimension: 48 bytes a vector where vector.sql reads 1,536), then
-- the exact L2 distance (vec0's, as in vector.sql) of those few, from the
-- vector kept beside their bits; nearest first. Compiled into the
-- extension.
-- ?1: the query signature's embedding (float32 blob); ?2: how many
-- neighbours; ?3: how many the first pass keeps.
SELECT knn.error_kb_id, coalesce(s.signature, kb.error_normalized), vec_distance_l2(knn.vector, ?1) AS distance
FROM (SELECT error_kb_id, vector FROM vec_error_kb_bits
      WHERE embedding MATCH vec_quantize_binary(?1) AND k = ?3) AS knn
JOIN error_kb AS kb ON kb.id = knn.error_kb_id
LEFT JOIN error_kb_signatures AS s ON s.error_kb_id = knn.error_kb_id
ORDER BY distance
LIMIT ?2
