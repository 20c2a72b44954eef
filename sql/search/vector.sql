-- kb_search stage 3 (vector). Compiled into the extension.
-- ?1: the query's embedding (float32 blob). The 3 nearest stored vectors by
-- vec0's default L2 distance (`k = ?` works on SQLite 3.40, `LIMIT` alone
-- needs 3.41), then the nearest of those that has a resolution. The
-- distance thresholds are applied in search.rs.
SELECT e.id, e.ts, e.error_normalized, e.error_raw, e.resolution, e.resolved_by, e.tool_sequence,
       e.use_count, e.last_used, knn.distance
FROM (SELECT error_kb_id, distance FROM vec_error_kb WHERE embedding MATCH ?1 AND k = 3) AS knn
JOIN error_kb AS e ON e.id = knn.error_kb_id
WHERE e.resolution IS NOT NULL
ORDER BY knn.distance
LIMIT 1
