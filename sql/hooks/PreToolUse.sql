-- PreToolUse (matcher Edit|Write|Bash|Task): before an edit, the errors
-- this file was part of and how they were fixed; before a shell command,
-- this session's last Bash error if its fix is known. Text lookups only:
-- no model, no vector search.
-- :stdin  Claude Code's payload: session_id, tool_name, tool_input, ...
-- Prints the hook's JSON answer when there is something to say.
-- One statement, no staging tables: in a process that runs it once, creating
-- them cost more than the lookups themselves.

WITH
-- Fixes, with their steps "A → B" (NULL when there are none, or the fix
-- is not JSON). Inlined where used, never computed for the whole table.
fix AS NOT MATERIALIZED (
  SELECT id, error_normalized, resolution, last_used,
         json_valid(resolution) AND json_type(resolution) = 'object' AS is_json,
         CASE WHEN json_valid(resolution) AND json_type(resolution, '$.toolSequence') = 'array'
              THEN (SELECT group_concat(value, ' → ') FROM json_each(resolution, '$.toolSequence')) END AS steps
  FROM main.error_kb
  WHERE resolution IS NOT NULL),

-- Edit / Write: up to 2 past errors about this file, most recently used first.
file_warnings AS (
  SELECT '⚠️ 이 파일 관련 과거 에러: ' || fix.error_normalized || char(10)
         || CASE WHEN fix.is_json
                 THEN '   해결 방법: ' || coalesce(json_extract(fix.resolution, '$.resolvedBy'), '')
                      || ' (' || coalesce(json_extract(fix.resolution, '$.tool'), '') || ')'
                      || coalesce(char(10) || '   해결 경로: ' || fix.steps, '')
                 ELSE '   해결 방법: ' || fix.resolution END AS line
  FROM main.error_kb_files AS f
  JOIN fix ON fix.id = f.error_kb_id
  WHERE json_extract(:stdin, '$.tool_name') IN ('Edit', 'Write')
    AND f.file_name = path_basename(json_extract(:stdin, '$.tool_input.file_path'))
  ORDER BY fix.last_used DESC, fix.id DESC
  LIMIT 2),

-- Bash: this session's latest Bash error, if the knowledge base knows its fix.
session_warning AS (
  SELECT '💡 이 세션에서 Bash 에러 발생 이력: ' || fix.error_normalized
         || coalesce(char(10) || '   이전 해결 경로: ' || fix.steps, '') AS line
  FROM fix
  WHERE json_extract(:stdin, '$.tool_name') = 'Bash'
    AND fix.error_normalized = (
      SELECT json_extract(data, '$.error') FROM main.events
      -- "+type": read this session's events (idx_events_session), never the
      -- whole database's errors through idx_events_type
      WHERE session_id = coalesce(json_extract(:stdin, '$.session_id'), 'unknown') AND +type = 'tool_error'
        AND json_extract(data, '$.tool') = 'Bash'
      ORDER BY ts DESC, id DESC LIMIT 1)
  LIMIT 1)

SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'PreToolUse', 'additionalContext', redact_secrets(text)))
FROM (SELECT group_concat(line, char(10)) AS text
      FROM (SELECT line FROM file_warnings UNION ALL SELECT line FROM session_warning))
WHERE text IS NOT NULL;
