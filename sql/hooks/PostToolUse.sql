-- PostToolUse: store the successful tool use, then learn: an error followed
-- by success is a resolution (SPEC §5).
-- :stdin     Claude Code's payload: session_id, cwd, tool_name, tool_input, ...
-- :event_ts  the call's original time when errkb learn imports a
--            transcript; NULL (now) in a live hook
-- Prints nothing.

-- The payload's few fields, parsed once (one json_extract with several
-- paths): a PostToolUse payload also carries the tool's whole output,
-- often hundreds of kilobytes, and each json_extract on it costs a parse.
CREATE TEMP TABLE payload AS
SELECT coalesce(:event_ts, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) AS ts,
       session_id, cwd, tool, command, file_path, pattern, agent_type, model, agent_id, tool_use_id,
       CASE WHEN tool = 'Bash' THEN command_subject(command) END AS subject,
       -- an edit's compact before → after, redacted before it is cut
       CASE WHEN old_text IS NOT NULL OR new_text IS NOT NULL
            THEN edit_hunk(redact_secrets(coalesce(old_text, '')), redact_secrets(coalesce(new_text, ''))) END AS edit
FROM (SELECT coalesce(json_extract(f, '$[0]'), 'unknown') AS session_id, json_extract(f, '$[1]') AS cwd,
             json_extract(f, '$[2]') AS tool, redact_secrets(substr(json_extract(f, '$[3]'), 1, 20000)) AS command,
             coalesce(json_extract(f, '$[4]'), json_extract(f, '$[8]')) AS file_path, json_extract(f, '$[5]') AS pattern,
             json_extract(f, '$[6]') AS agent_type, json_extract(f, '$[7]') AS model, json_extract(f, '$[9]') AS agent_id,
             substr(json_extract(f, '$[10]'), 1, 20000) AS old_text,
             substr(coalesce(json_extract(f, '$[11]'), json_extract(f, '$[12]')), 1, 20000) AS new_text,
             json_extract(f, '$[13]') AS tool_use_id
      FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.tool_input.command',
                                '$.tool_input.file_path', '$.tool_input.pattern', '$.tool_input.subagent_type',
                                '$.tool_input.model', '$.tool_input.notebook_path', '$.agent_id',
                                '$.tool_input.old_string', '$.tool_input.new_string',
                                '$.tool_input.new_source', '$.tool_use_id') AS f));

-- 1. The event, with what is worth remembering of the input ("meta"):
-- sensitive file names masked, secrets in commands redacted (before the
-- command is cut: a cut token no longer has the shape that is redacted).
-- A Bash command's subject (program and script or subcommand) tells a
-- retry of a failed command from an unrelated one; its line (at most 200
-- characters) and an edit's hunk are what a learned fix shows.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'tool_use', ts, session_id, path_basename(cwd), cwd,
       json_object('tool', tool, 'meta', json(CASE
         WHEN tool = 'Bash' THEN json_object('command',
           substr(ltrim(command), 1, instr(ltrim(command) || ' ', ' ') - 1), 'subject', subject,
           'line', substr(trim(command), 1, 200))
         WHEN tool IN ('Edit', 'NotebookEdit') THEN json_object('file', redact_path(file_path), 'edit', json(edit))
         WHEN tool IN ('Read', 'Write') THEN json_object('file', redact_path(file_path))
         WHEN tool IN ('Grep', 'Glob') THEN json_object('pattern', redact_secrets(pattern))
         -- Agent; Task is its name in clients before 2.1
         WHEN tool IN ('Agent', 'Task') THEN json_object('agentType', agent_type, 'model', model)
         END), 'success', json('true'), 'agentId', agent_id, 'toolUseId', tool_use_id)
FROM temp.payload;

-- 2. This agent's last 50 events of the session, oldest first (n =
-- position). The main thread and each subagent (agent_id) are separate
-- streams: one agent's success is not another's fix.
CREATE TEMP TABLE stream AS
SELECT id, type, ts, data FROM events
WHERE session_id = (SELECT session_id FROM temp.payload)
  -- tool steps only: a kb_hit (advice given) is not one
  AND type IN ('tool_use', 'tool_error')
  AND coalesce(data ->> '$.agentId', '') = coalesce((SELECT agent_id FROM temp.payload), '')
ORDER BY ts DESC, id DESC LIMIT 50;

-- Only when an error in the window is not learned yet can this success
-- teach anything. Most successes teach nothing: then the runner stops here
-- (a gate: see script.rs), and what follows does nothing anyway (the
-- sqlite3 shell runs it).
CREATE TEMP TABLE errkb_continue AS
SELECT 1 FROM temp.stream
WHERE type = 'tool_error' AND id NOT IN (SELECT event_id FROM main.resolved_errors)
LIMIT 1;

CREATE TEMP TABLE recent AS
SELECT row_number() OVER (ORDER BY ts, id) AS n, id, type,
       f ->> 0 AS tool, f ->> 1 AS error, f ->> 2 AS error_raw, f ->> 3 AS signature, f ->> 4 AS headline,
       coalesce(f ->> 5, f ->> 6) AS subject, coalesce(f ->> 7, f ->> 8) AS file, f ->> 9 AS line,
       f -> 10 AS edit
FROM (SELECT id, type, ts,
             -- one parse of each event's data for all its fields
             json_extract(data, '$.tool', '$.error', '$.errorRaw', '$.signature', '$.headline', '$.meta.subject',
                          '$.subject', '$.meta.file', '$.file', '$.meta.line', '$.meta.edit') AS f
      FROM temp.stream)
WHERE EXISTS (SELECT 1 FROM temp.errkb_continue);

-- 3. What this success resolves; an error event is learned at most once.
--
-- Whether success s is related to error e (SPEC §5.1): the same tool, and
-- for Bash the same subject (an `ls` after a failing `python3 app.py` is
-- not its fix, `python app.py` is), for file tools the same file. Errors
-- stored by older versions have neither: any success of their tool counts.
-- What was done between an error and its fix (SPEC §5.1): the commands
-- that ran (not the ones that only looked around: ls, cat, git status …,
-- nor retries of the failing one) and the edits, in order.
-- Both are computed once (MATERIALIZED), however often what follows
-- looks at them.
CREATE TEMP TABLE learned AS
WITH current AS (SELECT max(n) AS n, (SELECT tool FROM temp.payload) AS tool FROM temp.recent),
related AS MATERIALIZED (
SELECT e.n AS error_n, s.n AS success_n
FROM temp.recent AS e JOIN temp.recent AS s ON s.n > e.n AND s.tool = e.tool
WHERE e.type = 'tool_error' AND s.type = 'tool_use'
  AND (e.subject IS NULL OR e.subject = s.subject)
  AND (e.file IS NULL OR e.tool = 'Bash' OR e.file = s.file)),
steps AS MATERIALIZED (
SELECT n, tool, line, file, edit,
       tool = 'Bash' AND line IS NOT NULL
         AND coalesce(subject, '') NOT IN ('ls', 'cat', 'pwd', 'echo', 'head', 'tail', 'less', 'grep', 'rg', 'find',
                                           'which', 'type', 'file', 'wc', 'tree', 'stat', 'env', 'printenv',
                                           'git status', 'git diff', 'git log', 'git show', 'git branch') AS is_command,
       tool IN ('Edit', 'NotebookEdit') AND edit IS NOT NULL AS is_edit
FROM temp.recent WHERE type = 'tool_use'),
-- What this success resolves, each with where its fix ends: `until`, the
-- step of the success; `same`, whether the success is this call (of the
-- error's own tool: then its tool is part of the sequence, and its
-- command, a retry, is not one of the commands in between).
resolved AS (
-- same tool: the latest error of this tool that this success is related
-- to (none: a row with a NULL error, which joins nothing)
SELECT max(error_n) AS error_n, current.n AS until, 1 AS same FROM related, current WHERE success_n = current.n
UNION ALL
-- cross tool: an error of another tool, later followed by a related
-- success of its own tool, with this tool used in between
SELECT e.n, s.n, 0
FROM temp.recent e, current
JOIN temp.recent s ON s.n = (SELECT min(success_n) FROM related WHERE error_n = e.n)
WHERE e.type = 'tool_error' AND e.tool IS NOT current.tool
  AND EXISTS (SELECT 1 FROM temp.recent m WHERE m.n > e.n AND m.n < s.n AND m.tool = current.tool))
-- each with the tools used since the error (at most 5), the file last
-- touched, the commands run and the edits made
SELECT e.id AS event_id, e.error, e.error_raw, e.signature, e.headline,
       CASE WHEN r.same THEN 'success_after_error' ELSE 'cross_tool_resolution' END AS kind,
       (SELECT json_group_array(tool) FROM
          (SELECT tool FROM temp.recent x WHERE x.n > e.n AND x.n < r.until + r.same ORDER BY x.n LIMIT 5)) AS tool_sequence,
       (SELECT file FROM temp.recent x WHERE x.n > e.n AND x.n < r.until + r.same AND x.file IS NOT NULL
        ORDER BY x.n DESC LIMIT 1) AS file,
       (SELECT json_group_array(line) FROM (SELECT line FROM steps s WHERE s.n > e.n AND s.n < r.until AND s.is_command
          AND (NOT r.same OR s.line IS NOT (SELECT substr(trim(command), 1, 200) FROM temp.payload))
          ORDER BY s.n LIMIT 5)) AS commands,
       (SELECT json_group_array(json_object('file', file, 'before', json_extract(edit, '$.before'),
                                            'after', json_extract(edit, '$.after')))
          FROM (SELECT file, edit FROM steps s WHERE s.n > e.n AND s.n < r.until + r.same AND s.is_edit
                ORDER BY s.n LIMIT 3)) AS edits
FROM resolved AS r JOIN temp.recent AS e ON e.n = r.error_n
WHERE coalesce(e.error, '') <> '' AND e.id NOT IN (SELECT event_id FROM resolved_errors)
ORDER BY r.same DESC, e.n;

-- Nothing to learn after all (the window's unlearned errors are not this
-- success's): the runner stops here too (a gate); what follows would
-- insert nothing.
CREATE TEMP TABLE errkb_continue_learned AS SELECT 1 FROM temp.learned LIMIT 1;

-- 4. Learn each (kb_learn: the SPEC §5 UPSERT, the signature, the fix
-- among the error's fixes, the file names) with the command that worked
-- (redacted above, at most 120 characters) and the file last edited; then
-- remember the error as resolved: all or nothing, so that a killed hook
-- cannot learn an error twice. (A savepoint: errkb learn runs this inside
-- its own transaction.)
SAVEPOINT learn;
INSERT INTO kb_learn (ts, error_raw, error_key, signature, headline, resolution, resolved_by, tool_sequence)
SELECT p.ts, l.error_raw, l.error, l.signature, l.headline,
       json_patch(json_object('resolvedBy', l.kind, 'tool', p.tool, 'toolSequence', json(l.tool_sequence),
                              'sessionId', p.session_id, 'errorRaw', l.error_raw,
                              'command', p.command, 'file', l.file),
                  -- the steps in between, when there were any
                  json_object('commands', CASE WHEN json_array_length(l.commands) > 0 THEN json(l.commands) END,
                              'edits', CASE WHEN json_array_length(l.edits) > 0 THEN json(l.edits) END)),
       p.tool, l.tool_sequence
FROM temp.learned AS l,
     (SELECT tool, session_id, ts,
             CASE WHEN tool = 'Bash' THEN substr(trim(command), 1, 120) END AS command
      FROM temp.payload) AS p;

INSERT OR IGNORE INTO resolved_errors (event_id, error_kb_id, ts)
SELECT l.event_id, (SELECT id FROM error_kb WHERE error_normalized = l.error), (SELECT ts FROM temp.payload)
FROM temp.learned l;
RELEASE learn;
