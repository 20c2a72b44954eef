-- What this replica has that the hub lacks (errkb sync sends it, then
-- marks it in hub_sent). Rows: kind, fix id, uid, project, then by kind:
--   'fix'        error key, signature, headline, resolution (without the
--                session id), fix key
--   'counts'     learned, sessions, advised, helped, failed (this
--                replica's totals, sent when any grew)
--   'retraction' (nothing more)
-- Weak fixes (nothing changed) are never sent; nor is anything retracted.
SELECT 'fix', f.id, f.uid, f.project, kb.error_normalized, coalesce(s.signature, ''), f.error_headline,
       json_remove(f.resolution, '$.sessionId'), f.fix_key
FROM main.fixes AS f
JOIN main.error_kb AS kb ON kb.id = f.error_kb_id
LEFT JOIN main.error_kb_signatures AS s ON s.error_kb_id = kb.id
WHERE f.origin = 'local' AND f.weak = 0 AND f.project IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM main.hub_sent AS h WHERE h.fix_id = f.id)
  AND NOT EXISTS (SELECT 1 FROM main.retracted_fixes AS r WHERE r.uid = f.uid)
UNION ALL
SELECT 'counts', f.id, f.uid, f.project, c.learned, c.sessions, c.advised, c.helped, c.failed
FROM main.fix_counts AS c
JOIN main.fixes AS f ON f.id = c.fix_id
LEFT JOIN main.hub_sent AS h ON h.fix_id = f.id
WHERE c.replica = '' AND f.weak = 0 AND f.project IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM main.retracted_fixes AS r WHERE r.uid = f.uid)
  AND (h.fix_id IS NULL OR c.learned > h.learned OR c.sessions > h.sessions OR c.advised > h.advised
       OR c.helped > h.helped OR c.failed > h.failed)
UNION ALL
SELECT 'retraction', NULL, uid, NULL, NULL, NULL, NULL, NULL, NULL
FROM main.retracted_fixes WHERE sent = 0;
