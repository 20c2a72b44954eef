-- kb_search stage 2 (prefix): rows whose signature starts with the
-- query's first 30 characters and is close to it in length; and rows that
-- have no signature yet whose key does so with the query's key (the
-- original system's prefix stage, on idx_error_kb_prefix). Compiled into the
-- extension.
-- ?1: the query signature's first 30 characters; ?2: their bytes followed
-- by 0xFF (no UTF-8 text holds that byte, so [?1, ?2) is every text
-- starting with ?1: a range of idx_error_kb_signature); ?3: the whole
-- signature; ?4: the minimum length ratio (0.7); ?5, ?6, ?7: the same three
-- for the query's normalize_error() key.
--
-- A crowded prefix (thousands of rows in a large knowledge base) is not
-- read whole: of the signatures, the 8 nearest on each side of the query
-- in the index's order (those sharing the longest start with it); of the
-- rows without one, the 8 most used, then newest (the index's order read
-- backwards, which is how kb_search ranks rows it cannot compare).
SELECT error_kb_id FROM (
  SELECT error_kb_id FROM error_kb_signatures
  WHERE signature > ?3 AND signature < ?2 AND length_ratio(?3, signature) >= ?4
  ORDER BY signature LIMIT 8)
UNION ALL
SELECT error_kb_id FROM (
  SELECT error_kb_id FROM error_kb_signatures
  WHERE signature >= ?1 AND signature < ?3 AND length_ratio(?3, signature) >= ?4
  ORDER BY signature DESC LIMIT 8)
UNION ALL
SELECT id FROM (
  SELECT id FROM error_kb AS kb
  WHERE substr(error_normalized, 1, 30) >= ?5 COLLATE NOCASE AND substr(error_normalized, 1, 30) < ?6 COLLATE NOCASE
    AND resolution IS NOT NULL
    AND length_ratio(?7, error_normalized) >= ?4
    AND NOT EXISTS (SELECT 1 FROM error_kb_signatures AS s WHERE s.error_kb_id = kb.id)
  ORDER BY substr(error_normalized, 1, 30) COLLATE NOCASE DESC, use_count DESC, ts DESC
  LIMIT 8)
