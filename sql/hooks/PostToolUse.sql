-- PostToolUse: store the successful tool use, then learn: an error followed
-- by a related success is a resolution; and the first time an agent reads
-- (or writes) a file with a history, tell it that history.
-- :stdin     Claude Code's payload: session_id, cwd, tool_name, tool_input, ...
-- :file_content  a Read's file as read (the runner passes it on its own and
--            leaves tool_response out of :stdin; the sqlite3 shell, which
--            has only :stdin, finds it there; errkb learn passes it only
--            when it is empty: nothing else of it is used when importing)
-- :output    a shell command's output (likewise passed on its own): a
--            success that prints the error again fixed nothing
-- :subagent  the agent an Agent (Task) call started (tool_response.agentId)
-- :agent, :turn_id  the agent the call came from and its turn, when it is
--            not Claude Code (the runner binds 'codex' and Codex's turn):
--            every event stored says so; NULL: nothing is added
-- :event_ts  the call's original time when errkb learn imports a
--            transcript; NULL (now) in a live hook
-- Prints nothing.

-- The payload's few fields. A PostToolUse payload also carries the tool's
-- whole output, often hundreds of kilobytes: one json_extract with several
-- paths parses it once (SQLite 3.40, the stock shell, caches a parse per
-- call site only), and the fields are read from the small array it gives.
-- (Temp tables are declared, then filled: see PostToolUseFailure.sql.)
CREATE TEMP TABLE payload (ts, session_id, cwd, tool, command, file_path, target, agent_type, model, agent_id,
                           tool_use_id, subject, edit, sandbox_off, background, timeout, event_id);
INSERT INTO temp.payload (ts, session_id, cwd, tool, command, file_path, target, agent_type, model, agent_id,
                          tool_use_id, edit, sandbox_off, background, timeout)
SELECT coalesce(:event_ts, utc_now()),
       coalesce(f ->> '$[0]', 'unknown'), redact_private(f ->> '$[1]'), f ->> '$[2]',
       redact_private(substr(f ->> '$[3]', 1, 20000)), coalesce(f ->> '$[4]', f ->> '$[8]'),
       redact_private(substr(coalesce(f ->> '$[5]', f ->> '$[14]', f ->> '$[15]', f ->> '$[16]', f ->> '$[17]',
                                      -- a Read of part of a file: which part
                                      'offset ' || (f ->> '$[19]') || ', limit ' || coalesce(f ->> '$[20]', '-'),
                                      'limit ' || (f ->> '$[20]')), 1, 200)),
       f ->> '$[6]', f ->> '$[7]', f ->> '$[9]', f ->> '$[13]',
       -- an edit's compact before → after, redacted before it is cut
       CASE WHEN coalesce(f ->> '$[10]', f ->> '$[11]', f ->> '$[12]') IS NOT NULL
            THEN edit_hunk(redact_private(substr(coalesce(f ->> '$[10]', ''), 1, 20000)),
                           redact_private(substr(coalesce(f ->> '$[11]', f ->> '$[12]', ''), 1, 20000))) END,
       coalesce(f ->> '$[18]', 0) IN (1, 'true'), coalesce(f ->> '$[21]', 0) IN (1, 'true'),
       CAST(f ->> '$[22]' AS INTEGER)
FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.tool_input.command',
                          '$.tool_input.file_path', '$.tool_input.pattern', '$.tool_input.subagent_type',
                          '$.tool_input.model', '$.tool_input.notebook_path', '$.agent_id',
                          '$.tool_input.old_string', '$.tool_input.new_string',
                          '$.tool_input.new_source', '$.tool_use_id', '$.tool_input.url',
                          '$.tool_input.query', '$.tool_input.skill', '$.tool_input.path',
                          '$.tool_input.dangerouslyDisableSandbox', '$.tool_input.offset',
                          '$.tool_input.limit', '$.tool_input.run_in_background', '$.tool_input.timeout') AS f
      LIMIT -1);
UPDATE temp.payload SET subject = command_subject(command) WHERE tool IN ('Bash', 'PowerShell');

-- 1. The event, with what is worth remembering of the input ("meta"):
-- sensitive file names masked, secrets in commands redacted (before the
-- command is cut: a cut token no longer has the shape that is redacted).
-- A Bash command's subject (program and script or subcommand) tells a
-- retry of a failed command from an unrelated one; its line (at most 500
-- characters: a decisive command, an `ALTER TABLE … ADD COLUMN` or an
-- install with its options, whole) and an edit's hunk are what a learned
-- fix shows.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'tool_use', ts, session_id, path_basename(cwd), cwd,
       json_patch(json_object('tool', tool, 'meta', json(CASE
         WHEN tool IN ('Bash', 'PowerShell') THEN json_patch(json_object('command',
           substr(ltrim(command), 1, instr(ltrim(command) || ' ', ' ') - 1), 'subject', subject,
           'line', substr(trim(command), 1, 500)),
           json_object('sandboxOff', CASE WHEN sandbox_off THEN json('true') END,
                       'background', CASE WHEN background THEN json('true') END, 'timeout', timeout))
         WHEN tool IN ('Edit', 'NotebookEdit') THEN json_object('file', redact_path(file_path), 'edit', json(edit))
         -- (a Read that gave no content, past the file's end, read nothing:
         -- it is no retry that worked)
         WHEN tool = 'Read' THEN json_patch(json_object('file', redact_path(file_path)), json_object('target', target,
           'readNothing', CASE WHEN coalesce(:file_content, :stdin ->> '$.tool_response.file.content') = ''
                               THEN json('true') END))
         WHEN tool = 'Write' THEN json_object('file', redact_path(file_path))
         WHEN tool IN ('Grep', 'Glob') THEN json_object('pattern', target)
         -- Agent; Task is its name in clients before 2.1. The agent it
         -- started: its steps are part of a fix learned after it.
         WHEN tool IN ('Agent', 'Task') THEN json_patch(json_object('agentType', agent_type, 'model', model),
           json_object('subagent', coalesce(:subagent, :stdin ->> '$.tool_response.agentId')))
         WHEN target IS NOT NULL THEN json_object('target', target)
         END), 'success', json('true'), 'agentId', agent_id, 'toolUseId', tool_use_id),
         json_object('agent', :agent, 'turnId', :turn_id))
FROM temp.payload;
-- (the event's id, for the file history's "first read" below: learning
-- writes rows in between)
UPDATE temp.payload SET event_id = last_insert_rowid();

-- 2. What this success resolves (kb_resolves): in this
-- agent's last 50 steps of the session up to this one (another hook of
-- the session may have stored a step since), the latest error of this tool
-- that it is related to (a retry of the same program or script, the same
-- file: an `ls` after a failing `python3 app.py` is not its fix; and not
-- one whose output shows the error again), and errors of other tools
-- resolved with this tool used in between; each with the commands run and
-- the edits made before the success. An error is learned at most once.
CREATE TEMP TABLE learned (event_id, error, error_raw, signature, headline, kind, tool_sequence, file, commands,
                           edits, writes, changed, weak, success_event_id, steps);
INSERT INTO temp.learned
SELECT r.event_id, r.error, r.error_raw, r.signature, r.headline, r.kind, r.tool_sequence, r.file, r.commands,
       r.edits, r.writes, r.changed, r.weak, r.success_event_id, r.steps
FROM temp.payload AS p,
     kb_resolves(p.session_id, p.agent_id,
                 coalesce(:output, nullif(trim(coalesce(:stdin ->> '$.tool_response.stdout', '') || char(10)
                                               || coalesce(:stdin ->> '$.tool_response.stderr', '')), '')),
                 p.event_id) AS r;

-- Most successes teach nothing and have nothing to tell: then the runner
-- stops here (a gate: see runtime/script.rs), and what follows does
-- nothing anyway (the sqlite3 shell runs it). It goes on when this
-- success resolved an error, or is a file errors are known about.
CREATE TEMP TABLE errkb_continue AS
SELECT 1 FROM temp.learned
UNION ALL
SELECT 1 FROM temp.payload AS p
     JOIN main.error_kb_files AS ef ON ef.file_name = path_basename(redact_path(p.file_path))
     WHERE :event_ts IS NULL AND p.tool IN ('Read', 'Edit', 'Write', 'NotebookEdit')
LIMIT 1;

-- 3. Learn each (kb_learn: the error_kb UPSERT, the signature, the fix
-- among the error's fixes with its counts, the file names, the error
-- marked as learned) with the command that worked (redacted above, at
-- most 500 characters): all or nothing, so that a killed hook cannot
-- learn an error twice. (A savepoint: errkb learn runs this inside its
-- own transaction.)
SAVEPOINT learn;
INSERT INTO kb_learn (ts, error_raw, error_key, signature, headline, resolution, resolved_by, tool_sequence, weak,
                      project, session_id, event_id, success_event_id, steps)
SELECT p.ts, l.error_raw, l.error, l.signature, l.headline,
       json_patch(json_object('resolvedBy', l.kind, 'tool', p.tool, 'toolSequence', json(l.tool_sequence),
                              'sessionId', p.session_id, 'errorRaw', l.error_raw,
                              'command', p.command, 'file', l.file),
                  -- the steps in between and what the retry changed, when there were any
                  json_object('commands', CASE WHEN json_array_length(l.commands) > 0 THEN json(l.commands) END,
                              'edits', CASE WHEN json_array_length(l.edits) > 0 THEN json(l.edits) END,
                              'writes', CASE WHEN json_array_length(l.writes) > 0 THEN json(l.writes) END,
                              'changed', CASE WHEN json_array_length(l.changed) > 0 THEN json(l.changed) END,
                              'weak', CASE WHEN l.weak THEN json('true') END)),
       p.tool, l.tool_sequence, l.weak, p.cwd, p.session_id, l.event_id, l.success_event_id, l.steps
FROM temp.learned AS l,
     (SELECT tool, session_id, ts, cwd,
             CASE WHEN tool IN ('Bash', 'PowerShell') THEN substr(project_relative(trim(command), cwd), 1, 500) END AS command
      FROM temp.payload) AS p;
RELEASE learn;

-- 4. A fix this agent was told for an error that this success resolved
-- helped.
INSERT INTO fix_counts (fix_id, replica, helped)
SELECT a.data ->> '$.fixId', '', 1
FROM temp.learned AS l
JOIN main.events AS e ON e.id = l.event_id
CROSS JOIN main.events AS a ON a.session_id = e.session_id
WHERE a.type = 'advice' AND a.data ->> '$.toolUseId' = e.data ->> '$.toolUseId' AND a.data ->> '$.fixId' IS NOT NULL
ON CONFLICT (fix_id, replica) DO UPDATE SET helped = helped + 1;

-- The rest is a file's history: only for a file errors are known about
-- (a second gate: a success that learned stops here).
CREATE TEMP TABLE errkb_continue_history AS
SELECT 1 FROM temp.payload AS p
     JOIN main.error_kb_files AS ef ON ef.file_name = path_basename(redact_path(p.file_path))
     WHERE :event_ts IS NULL AND p.tool IN ('Read', 'Edit', 'Write', 'NotebookEdit')
LIMIT 1;

-- 5. A file's history: the first time this agent reads a file in this
-- session (or edits or writes it), the errors about it (their fix touched
-- it, or their text names it: file_history_status, on paths relative to
-- the project), at most 3, newest first, each with the best fix the one
-- rule lets this agent be told (tellable: not told to it in this session,
-- not applied by it), learned in this project: another project's file of
-- the same name is another file. Left out: an error whose fix is in the
-- file as read already. (Live only: learning from a transcript tells
-- nothing.)
CREATE TEMP TABLE history (fix_uid, headline, resolution, origin, ts);
INSERT INTO temp.history
SELECT fix_uid, headline, resolution, origin, ts
FROM (SELECT t.uid AS fix_uid, t.headline, t.resolution, t.origin, coalesce(f.last_used, t.ts) AS ts,
             row_number() OVER (PARTITION BY kb.id ORDER BY t.rank) AS rank
      FROM (SELECT *, project_relative(redact_path(file_path), cwd) AS file FROM temp.payload) AS p
      CROSS JOIN main.error_kb_files AS ef ON ef.file_name = path_basename(p.file)
      JOIN main.error_kb AS kb ON kb.id = ef.error_kb_id
      JOIN tellable(kb.id, p.session_id, p.agent_id, project_identity(p.cwd)) AS t
      LEFT JOIN main.fixes AS f ON f.id = t.fix_id
      WHERE :event_ts IS NULL AND p.tool IN ('Read', 'Edit', 'Write', 'NotebookEdit')
        AND t.this_project
        -- checked against the file as read (or written), fetched only here
        AND file_history_status(kb.error_raw, t.resolution, p.file,
              coalesce(:file_content, :stdin ->> '$.tool_response.file.content', :stdin ->> '$.tool_input.content'))
            = 'open'
        -- the first time this agent reads or writes the file in the session
        AND NOT EXISTS (
          SELECT 1 FROM main.events AS e
          WHERE e.session_id = p.session_id AND e.type = 'tool_use' AND e.id < p.event_id
            AND coalesce(e.data ->> '$.agentId', '') = coalesce(p.agent_id, '')
            AND e.data ->> '$.meta.file' = redact_path(p.file_path)))
WHERE rank = 1
ORDER BY ts DESC
LIMIT 3;

-- 6. The file's history, noted (the fixes told, so that no hook tells
-- this agent one again) and told.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', utc_now(), p.session_id, path_basename(p.cwd), p.cwd,
       json_patch(json_object('tool', p.tool, 'kind', 'file',
                              'key', 'file:' || project_relative(redact_path(p.file_path), p.cwd),
                              'fixes', json((SELECT json_group_array(fix_uid) FROM temp.history)),
                              'agentId', p.agent_id, 'toolUseId', p.tool_use_id),
                  json_object('agent', :agent, 'turnId', :turn_id))
FROM temp.payload AS p
WHERE EXISTS (SELECT 1 FROM temp.history);

SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'PostToolUse',
         'additionalContext', render_advice('file', json_object('entries', json_group_array(json_object(
           'headline', headline, 'fix', resolution,
           'team', json(CASE WHEN origin = 'team' THEN 'true' ELSE 'false' END)))))))
FROM (SELECT * FROM temp.history ORDER BY ts DESC)
HAVING count(*) > 0;
