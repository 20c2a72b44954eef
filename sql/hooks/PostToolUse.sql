-- PostToolUse: store the successful tool use, then learn: an error followed
-- by success is a resolution (SPEC §5).
-- :stdin     Claude Code's payload: session_id, cwd, tool_name, tool_input, ...
-- :event_ts  the call's original time when errkb learn imports a
--            transcript; NULL (now) in a live hook
-- Prints nothing.

-- The payload's few fields. A PostToolUse payload also carries the tool's
-- whole output, often hundreds of kilobytes: one json_extract with several
-- paths parses it once (SQLite 3.40, the stock shell, caches a parse per
-- call site only), and the fields are read from the small array it gives.
-- (Temp tables are declared, then filled: see PostToolUseFailure.sql.)
CREATE TEMP TABLE payload (ts, session_id, cwd, tool, command, file_path, pattern, agent_type, model, agent_id,
                           tool_use_id, subject, edit);
INSERT INTO temp.payload (ts, session_id, cwd, tool, command, file_path, pattern, agent_type, model, agent_id,
                          tool_use_id, edit)
SELECT coalesce(:event_ts, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
       coalesce(f ->> '$[0]', 'unknown'), f ->> '$[1]', f ->> '$[2]',
       redact_secrets(substr(f ->> '$[3]', 1, 20000)), coalesce(f ->> '$[4]', f ->> '$[8]'),
       f ->> '$[5]', f ->> '$[6]', f ->> '$[7]', f ->> '$[9]', f ->> '$[13]',
       -- an edit's compact before → after, redacted before it is cut
       CASE WHEN coalesce(f ->> '$[10]', f ->> '$[11]', f ->> '$[12]') IS NOT NULL
            THEN edit_hunk(redact_secrets(substr(coalesce(f ->> '$[10]', ''), 1, 20000)),
                           redact_secrets(substr(coalesce(f ->> '$[11]', f ->> '$[12]', ''), 1, 20000))) END
FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.tool_input.command',
                          '$.tool_input.file_path', '$.tool_input.pattern', '$.tool_input.subagent_type',
                          '$.tool_input.model', '$.tool_input.notebook_path', '$.agent_id',
                          '$.tool_input.old_string', '$.tool_input.new_string',
                          '$.tool_input.new_source', '$.tool_use_id') AS f
      LIMIT -1);
UPDATE temp.payload SET subject = command_subject(command) WHERE tool = 'Bash';

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

-- 2. What this success resolves (kb_resolves, SPEC §5.1): in this
-- agent's last 50 steps of the session, the latest error of this tool
-- that it is related to (a retry of the same program or script, the same
-- file: an `ls` after a failing `python3 app.py` is not its fix), and
-- errors of other tools resolved with this tool used in between; each
-- with the commands run and the edits made before the success. An error
-- is learned at most once.
CREATE TEMP TABLE learned (event_id, error, error_raw, signature, headline, kind, tool_sequence, file, commands,
                           edits);
INSERT INTO temp.learned
SELECT r.event_id, r.error, r.error_raw, r.signature, r.headline, r.kind, r.tool_sequence, r.file, r.commands,
       r.edits
FROM temp.payload AS p, kb_resolves(p.session_id, p.agent_id) AS r;

-- Most successes teach nothing: then the runner stops here (a gate: see
-- script.rs), and what follows does nothing anyway (the sqlite3 shell
-- runs it).
CREATE TEMP TABLE errkb_continue AS SELECT 1 FROM temp.learned LIMIT 1;

-- 3. Learn each (kb_learn: the SPEC §5 UPSERT, the signature, the fix
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
