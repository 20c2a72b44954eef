-- PostToolUseFailure: store the failure, then tell the agent how the same
-- (or a similar) error was fixed before.
-- :stdin  Claude Code's payload: session_id, cwd, tool_name, tool_input, error,
--         is_interrupt, tool_use_id, agent_id (inside a subagent)
-- :event_ts  the call's original time when errkb learn imports a
--            transcript (then nothing is searched or advised); NULL (now)
--            in a live hook
-- :agent, :turn_id  the agent the call came from and its turn, when it is
--            not Claude Code (the runner binds 'codex' and Codex's turn):
--            every event stored says so; NULL: nothing is added
-- Prints the hook's JSON answer when a past fix is found, nothing otherwise.
-- An interrupt (the user stopped the call) is stored as such and is
-- neither an error to learn from nor one to advise on.

-- The payload's few fields (SQLite 3.45 and later parse :stdin once for
-- all of them; see DESIGN.md for the 3.40 shell), then what is derived
-- from the error, computed once: an error may be megabytes. Secrets are
-- redacted before anything is derived from the error (its first 20,000
-- characters: the key and the stored text come from far less, and a cut
-- token past that point is never kept). Each step is a statement of its
-- own: nested subqueries cost SQLite several times more to compile than
-- the work they save.
-- (Temp tables are declared, then filled: `CREATE TABLE … AS SELECT`
-- compiles its query without SQLite's small-allocation cache.)
CREATE TEMP TABLE payload (ts, session_id, cwd, tool, secrets_out, error, error_key, error_raw, english, signature,
                           headline, identified, subject, line, file, target, sandbox_off, background, timeout,
                           agent_id, tool_use_id, kind);
INSERT INTO temp.payload (ts, session_id, cwd, tool, secrets_out, subject, line, file, target, sandbox_off, background,
                          timeout, agent_id, tool_use_id, kind)
SELECT coalesce(:event_ts, utc_now()),
       coalesce(:stdin ->> '$.session_id', 'unknown'), redact_private(:stdin ->> '$.cwd'), :stdin ->> '$.tool_name',
       redact_secrets(substr(coalesce(:stdin ->> '$.error', ''), 1, 20000)),
       CASE WHEN :stdin ->> '$.tool_name' IN ('Bash', 'PowerShell') THEN redact_private(command_subject(:stdin ->> '$.tool_input.command')) END,
       CASE WHEN :stdin ->> '$.tool_name' IN ('Bash', 'PowerShell')
            THEN substr(trim(redact_private(substr(:stdin ->> '$.tool_input.command', 1, 20000))), 1, 500) END,
       redact_path(coalesce(:stdin ->> '$.tool_input.file_path', :stdin ->> '$.tool_input.notebook_path')),
       redact_private(substr(coalesce(:stdin ->> '$.tool_input.pattern', :stdin ->> '$.tool_input.url',
                                      :stdin ->> '$.tool_input.query', :stdin ->> '$.tool_input.skill',
                                      -- a Read of part of a file: which part
                                      'offset ' || (:stdin ->> '$.tool_input.offset') || ', limit '
                                        || coalesce(:stdin ->> '$.tool_input.limit', '-'),
                                      'limit ' || (:stdin ->> '$.tool_input.limit')), 1, 200)),
       coalesce(:stdin ->> '$.tool_input.dangerouslyDisableSandbox', 0) IN (1, 'true'),
       coalesce(:stdin ->> '$.tool_input.run_in_background', 0) IN (1, 'true'),
       CAST(:stdin ->> '$.tool_input.timeout' AS INTEGER),
       :stdin ->> '$.agent_id', :stdin ->> '$.tool_use_id',
       -- an interrupt, the tool's own error, or Claude Code's report of
       -- something else (a rejection, a denial, a block: failure_kind)
       CASE WHEN coalesce(:stdin ->> '$.is_interrupt', 0) IN (1, 'true') THEN 'interrupt'
            ELSE failure_kind(substr(coalesce(:stdin ->> '$.error', ''), 1, 20000)) END;
-- What is derived from the error, for errors and interrupts only: a
-- rejection's text holds the user's words, which are not kept.
-- The key is made of the error with its home folder as it was (a path, so
-- masked like any other: '/home/NAME/x' and '/srv/x' give one key), and
-- kept without a user name; everything else of the home folder becomes ~.
-- Both are made of the error's excerpt (error_excerpt: from its identifying
-- line on, when that is not near the start): a test runner's header is not
-- what its failures are known by.
UPDATE temp.payload SET error = redact_private(secrets_out),
                        error_key = redact_private(normalize_error(error_excerpt(secrets_out)))
WHERE kind IN ('error', 'interrupt');
UPDATE temp.payload SET error_raw = substr(error_excerpt(error), 1, 500), english = translate_messages(error),
                        secrets_out = NULL
WHERE kind IN ('error', 'interrupt');
UPDATE temp.payload SET signature = error_signature(english), headline = error_headline(english),
                        identified = error_identified(english)
WHERE kind IN ('error', 'interrupt');

-- 1. The event (before anything that may be slow or fail: it commits
-- alone). An error keeps what learning needs later: its signature and
-- identifying line, and what the call acted on (the command's subject and
-- line, the file, another tool's target, whether the sandbox was off), to
-- tell a related success from an unrelated one. An error whose output does
-- not say what went wrong is not learned from, and keeps none of its text:
-- there is nothing in it to learn or to show, and some clients pass the
-- words a user typed on declining a call as the bare result, where
-- nothing tells them from a command's output. Anything else that failed
-- (rejected, denied, blocked, invalid input) is noted as a `tool_blocked`
-- event of its kind, without its text.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, CASE kind WHEN 'error' THEN 'tool_error' WHEN 'interrupt' THEN 'tool_interrupt' ELSE 'tool_blocked' END,
       ts, session_id, path_basename(cwd), cwd,
       json_patch(CASE WHEN kind IN ('error', 'interrupt')
            -- (json_patch leaves out the members of its second object
            -- that are null)
            THEN json_patch(json_object('tool', tool, 'subject', subject, 'line', line,
                             'file', file, 'target', target, 'agentId', agent_id, 'toolUseId', tool_use_id),
                            json_object('error', CASE WHEN identified THEN error_key END,
                                        'errorRaw', CASE WHEN identified THEN error_raw END,
                                        'signature', CASE WHEN identified THEN signature END,
                                        'headline', CASE WHEN identified THEN headline END,
                                        'sandboxOff', CASE WHEN sandbox_off THEN json('true') END,
                                        'background', CASE WHEN background THEN json('true') END,
                                        'timeout', timeout,
                                        'identified', CASE WHEN NOT identified THEN json('false') END))
            ELSE json_object('tool', tool, 'kind', kind, 'subject', subject, 'file', file,
                             'agentId', agent_id, 'toolUseId', tool_use_id) END,
                  json_object('agent', :agent, 'turnId', :turn_id))
FROM temp.payload;

-- 2. A fix this agent was told for its previous error did not help when
-- that error comes back right after (the stream's previous error is the
-- one the advice answered, and this one has its signature): it counts a
-- failure, and the search below passes over a fix that failed more often
-- than it worked (learned, or advised and followed). (Live only: learning from a transcript gives no advice.)
-- It can count something only in a session that was told a fix: the
-- runner compiles it only then (a condition; see runtime/script.rs).
CREATE TEMP TABLE errkb_if_advised AS
SELECT 1 FROM temp.payload AS p JOIN main.events AS a ON a.session_id = p.session_id
WHERE p.kind = 'error' AND :event_ts IS NULL AND a.type = 'advice';
INSERT INTO fix_counts (fix_id, replica, failed)
SELECT a.data ->> '$.fixId', '', 1
FROM temp.payload AS p,
     (SELECT e.data ->> '$.toolUseId' AS tool_use_id, e.data ->> '$.signature' AS signature
      FROM temp.payload AS q CROSS JOIN main.events AS e ON e.session_id = q.session_id
      WHERE e.type = 'tool_error' AND coalesce(e.data ->> '$.agentId', '') = coalesce(q.agent_id, '')
        AND e.id < last_insert_rowid()
      ORDER BY e.ts DESC, e.id DESC LIMIT 1) AS previous
CROSS JOIN main.events AS a ON a.session_id = p.session_id
WHERE p.kind = 'error' AND :event_ts IS NULL AND previous.signature = p.signature
  AND a.type = 'advice' AND a.data ->> '$.toolUseId' = previous.tool_use_id AND a.data ->> '$.fixId' IS NOT NULL
ON CONFLICT (fix_id, replica) DO UPDATE SET failed = failed + 1;

-- 3. The best past fix: exact, prefix, then vector stage, on the signature
-- (only for an error, and none when importing a transcript), among the
-- fixes the one rule lets this agent be told now (tellable: not one it was
-- told in this session by any hook, nor one it applied itself; this
-- project's first). At most one row: kb_search gives the best fix, and
-- the next best of another content (`other_fix`). The file the call acted
-- on goes with the error: a fix that was only the same call on another
-- file (a Read with a window) is not told.
CREATE TEMP TABLE hit (id, fix_id, fix_uid, stage, distance, headline, error_normalized, resolution, other_fix,
                       other_fixes, origin, other_origin, other_uid, elsewhere);
INSERT INTO temp.hit
SELECT h.id, h.fix_id, h.fix_uid, h.stage, h.distance, h.headline, h.error_normalized, h.resolution, h.other_fix,
       h.other_fixes, h.origin, h.other_origin, h.other_uid, h.elsewhere
FROM temp.payload AS p, kb_search(p.error, p.session_id, p.agent_id, project_identity(p.cwd), 0, p.file) AS h
WHERE p.kind = 'error' AND :event_ts IS NULL;

-- Nothing found (a new error, an interrupt, an import): the runner stops
-- here (a gate: see runtime/script.rs); what follows does nothing without
-- a hit.
CREATE TEMP TABLE errkb_continue AS SELECT 1 FROM temp.hit;

-- 4. Count the use, once, and note the advice: the fixes told (so that
-- this agent is told each once, by any hook), the error it answered, and
-- how the fix was found (for the history views). All or nothing.
SAVEPOINT advise;
UPDATE error_kb SET use_count = use_count + 1, last_used = utc_now()
WHERE id = (SELECT id FROM temp.hit);
UPDATE fixes SET last_used = utc_now() WHERE id = (SELECT fix_id FROM temp.hit);
INSERT INTO fix_counts (fix_id, replica, advised) SELECT fix_id, '', 1 FROM temp.hit WHERE fix_id IS NOT NULL
ON CONFLICT (fix_id, replica) DO UPDATE SET advised = advised + 1;

INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', utc_now(), p.session_id, path_basename(p.cwd), p.cwd,
       json_patch(json_object('tool', p.tool, 'kind', 'failure', 'key', 'fix:' || h.fix_uid,
                   -- the fixes the text tells: the best, and the next one when there is one
                   'fixes', json(CASE WHEN h.other_uid IS NULL THEN json_array(h.fix_uid)
                                      ELSE json_array(h.fix_uid, h.other_uid) END),
                   'agentId', p.agent_id, 'toolUseId', p.tool_use_id,
                   'errorKbId', h.id, 'fixId', h.fix_id, 'stage', h.stage, 'distance', h.distance),
                  json_object('agent', :agent, 'turnId', :turn_id))
FROM temp.hit AS h, temp.payload AS p;
RELEASE advise;

-- 5. The answer (render_advice: the words, in the user's language). The
-- error quoted is the original one the fix was learned from (its
-- identifying line), so the agent can judge whether it is the same
-- problem; "the same error" only when the search matched it exactly and
-- its values are this error's. A fix learned only in another project says
-- which (its paths are that project's).
SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'PostToolUseFailure',
         'additionalContext', render_advice('failure', json_object(
           'same', json(CASE WHEN h.stage = 'exact'
                              AND (h.headline = project_relative(p.headline, p.cwd)
                                   -- a row an older writer filled: no headline, its key
                                   OR h.headline = '' AND h.error_normalized = p.error_key)
                             THEN 'true' ELSE 'false' END),
           'team', json(CASE WHEN h.origin = 'team' THEN 'true' ELSE 'false' END),
           'elsewhere', h.elsewhere,
           'headline', coalesce(nullif(h.headline, ''), h.error_normalized),
           'fix', h.resolution, 'other', h.other_fix, 'other_origin', h.other_origin, 'others', h.other_fixes))))
FROM temp.hit AS h, temp.payload AS p;
