-- kb_search stage 3 (vector). Compiled into the extension.
-- ?1: the query signature's embedding (float32 blob); ?2: how many
-- neighbours. The nearest stored vectors by vec0's default L2 distance
-- (`k = ?` works on SQLite 3.40, `LIMIT` alone needs 3.41), with the text
-- each embeds (its signature, or its key while it has none), nearest
-- first. The thresholds are applied in search.rs.
SELECT knn.error_kb_id, coalesce(s.signature, kb.error_normalized), knn.distance
FROM (SELECT error_kb_id, distance FROM vec_error_kb WHERE embedding MATCH ?1 AND k = ?2) AS knn
JOIN error_kb AS kb ON kb.id = knn.error_kb_id
LEFT JOIN error_kb_signatures AS s ON s.error_kb_id = knn.error_kb_id
ORDER BY knn.distance
