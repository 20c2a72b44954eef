-- PostToolUse: store the successful tool use, then learn: an error followed
-- by success is a resolution (SPEC §5).
-- :stdin  Claude Code's payload: session_id, cwd, tool_name, tool_input, ...
-- Prints nothing.

-- The payload's few fields, parsed once (one json_extract with several
-- paths): a PostToolUse payload also carries the tool's whole output,
-- often hundreds of kilobytes, and each json_extract on it costs a parse.
CREATE TEMP TABLE payload AS
SELECT coalesce(json_extract(f, '$[0]'), 'unknown') AS session_id, json_extract(f, '$[1]') AS cwd,
       json_extract(f, '$[2]') AS tool, redact_secrets(substr(json_extract(f, '$[3]'), 1, 20000)) AS command,
       json_extract(f, '$[4]') AS file_path, json_extract(f, '$[5]') AS pattern,
       json_extract(f, '$[6]') AS agent_type, json_extract(f, '$[7]') AS model
FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.tool_input.command',
                          '$.tool_input.file_path', '$.tool_input.pattern', '$.tool_input.subagent_type',
                          '$.tool_input.model') AS f);

-- 1. The event, with what is worth remembering of the input ("meta"):
-- sensitive file names masked, secrets in commands redacted (before the
-- command is cut: a cut token no longer has the shape that is redacted).
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'tool_use', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), session_id, path_basename(cwd), cwd,
       json_object('tool', tool, 'meta', json(CASE
         WHEN tool = 'Bash' THEN json_object('command',
           substr(ltrim(command), 1, instr(ltrim(command) || ' ', ' ') - 1))
         WHEN tool IN ('Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit') THEN json_object('file', redact_path(file_path))
         WHEN tool IN ('Grep', 'Glob') THEN json_object('pattern', redact_secrets(pattern))
         WHEN tool = 'Task' THEN json_object('agentType', agent_type, 'model', model)
         END), 'success', json('true'))
FROM temp.payload;

-- 2. The session's last 50 events, oldest first (n = position).
CREATE TEMP TABLE recent AS
SELECT row_number() OVER (ORDER BY ts, id) AS n, id, type,
       json_extract(data, '$.tool') AS tool,
       json_extract(data, '$.error') AS error,
       json_extract(data, '$.errorRaw') AS error_raw,
       json_extract(data, '$.meta.file') AS file
FROM (SELECT * FROM events WHERE session_id = (SELECT session_id FROM temp.payload)
        -- tool steps only: a kb_hit (advice given) is not one
        AND type IN ('tool_use', 'tool_error')
      ORDER BY ts DESC, id DESC LIMIT 50);

-- 3. What this success resolves; an error event is learned at most once.
CREATE TEMP TABLE learned AS
WITH current AS (SELECT max(n) AS n, (SELECT tool FROM temp.payload) AS tool FROM temp.recent)
-- same tool: the latest error of this tool; the tools used since (at most 5)
SELECT e.id AS event_id, e.error, e.error_raw, 'success_after_error' AS kind,
       (SELECT json_group_array(tool) FROM
          (SELECT tool FROM temp.recent r WHERE r.n > e.n ORDER BY r.n LIMIT 5)) AS tool_sequence,
       (SELECT file FROM temp.recent r WHERE r.n > e.n AND r.file IS NOT NULL ORDER BY r.n DESC LIMIT 1) AS file
FROM temp.recent e, current
WHERE e.type = 'tool_error' AND e.tool = current.tool
  AND e.n = (SELECT max(n) FROM temp.recent WHERE type = 'tool_error' AND tool = current.tool)
  AND coalesce(e.error, '') <> '' AND e.id NOT IN (SELECT event_id FROM resolved_errors)
UNION ALL
-- cross tool: an error of another tool, later followed by a success of its
-- own tool, with this tool used in between; the tools in between
SELECT e.id, e.error, e.error_raw, 'cross_tool_resolution',
       (SELECT json_group_array(tool) FROM
          (SELECT tool FROM temp.recent r WHERE r.n > e.n AND r.n < s.n ORDER BY r.n LIMIT 5)),
       (SELECT file FROM temp.recent r WHERE r.n > e.n AND r.n < s.n AND r.file IS NOT NULL ORDER BY r.n DESC LIMIT 1)
FROM temp.recent e, current
JOIN temp.recent s ON s.n = (SELECT min(n) FROM temp.recent x
                              WHERE x.type = 'tool_use' AND x.tool = e.tool AND x.n > e.n)
WHERE e.type = 'tool_error' AND e.tool IS NOT current.tool
  AND EXISTS (SELECT 1 FROM temp.recent m WHERE m.n > e.n AND m.n < s.n AND m.tool = current.tool)
  AND coalesce(e.error, '') <> '' AND e.id NOT IN (SELECT event_id FROM resolved_errors);

-- 4. Record each (SPEC §5 UPSERT) with the command that worked (redacted
-- above, at most 120 characters) and the file last edited; then remember the
-- file names it concerns, and the error as resolved: all or nothing, so
-- that a killed hook cannot learn an error twice.
BEGIN;
INSERT INTO error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), l.error, l.error_raw,
       json_object('resolvedBy', l.kind, 'tool', p.tool, 'toolSequence', json(l.tool_sequence),
                   'sessionId', p.session_id, 'errorRaw', l.error_raw,
                   'command', p.command, 'file', l.file),
       p.tool, l.tool_sequence, 1
FROM temp.learned AS l,
     (SELECT tool, session_id,
             CASE WHEN tool = 'Bash' THEN substr(trim(command), 1, 120) END AS command
      FROM temp.payload) AS p
WHERE true
ON CONFLICT(error_normalized) DO UPDATE SET
  ts = excluded.ts, error_raw = excluded.error_raw, resolution = excluded.resolution,
  resolved_by = excluded.resolved_by, tool_sequence = excluded.tool_sequence,
  use_count = use_count + 1;

INSERT OR IGNORE INTO error_kb_files (file_name, error_kb_id)
SELECT f.value, kb.id
FROM temp.learned l JOIN error_kb kb ON kb.error_normalized = l.error,
     json_each(path_names(coalesce(l.error_raw, '') || ' ' || coalesce(l.file, ''))) AS f;

INSERT OR IGNORE INTO resolved_errors (event_id, error_kb_id, ts)
SELECT l.event_id, (SELECT id FROM error_kb WHERE error_normalized = l.error), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM temp.learned l;
COMMIT;
