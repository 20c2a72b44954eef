-- kb_search stage 1 (exact): the rows whose signature is the query's
-- (idx_error_kb_signature), and rows that have no signature yet (written
-- by others, before the embedding job gave them one) whose key is the
-- query's, as given or normalised (idx_error_kb_error). Compiled into the
-- extension.
-- A row whose signature is the query's without a label in front of it
-- (`PR #533: none of the git remotes …`, a loop's or a wrapper's prefix:
-- see `labelled_tails` in search.rs) is one too.
-- ?1: the query's signature; ?2: the query as a key; ?3: normalize_error(query);
-- ?4, ?5: the signature's tails after a label (NULL: none).
SELECT error_kb_id FROM error_kb_signatures WHERE signature IN (?1, ?4, ?5)
UNION
SELECT id FROM error_kb AS kb
WHERE error_normalized IN (?2, ?3)
  AND NOT EXISTS (SELECT 1 FROM error_kb_signatures AS s WHERE s.error_kb_id = kb.id)
LIMIT 50
