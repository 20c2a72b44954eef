-- PostToolUseFailure: store the failure, then tell the agent how the same
-- (or a similar) error was fixed before.
-- :stdin  Claude Code's payload: session_id, cwd, tool_name, tool_input, error,
--         is_interrupt, tool_use_id, agent_id (inside a subagent)
-- :event_ts  the call's original time when errkb learn imports a
--            transcript (then nothing is searched or advised); NULL (now)
--            in a live hook
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
CREATE TEMP TABLE payload (ts, session_id, cwd, tool, error, error_key, error_raw, english, signature, headline,
                           identified, subject, line, file, target, sandbox_off, agent_id, tool_use_id, kind);
INSERT INTO temp.payload (ts, session_id, cwd, tool, error, subject, line, file, target, sandbox_off, agent_id,
                          tool_use_id, kind)
SELECT coalesce(:event_ts, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
       coalesce(:stdin ->> '$.session_id', 'unknown'), redact_private(:stdin ->> '$.cwd'), :stdin ->> '$.tool_name',
       redact_private(substr(coalesce(:stdin ->> '$.error', ''), 1, 20000)),
       CASE WHEN :stdin ->> '$.tool_name' IN ('Bash', 'PowerShell') THEN redact_private(command_subject(:stdin ->> '$.tool_input.command')) END,
       CASE WHEN :stdin ->> '$.tool_name' IN ('Bash', 'PowerShell')
            THEN substr(trim(redact_private(substr(:stdin ->> '$.tool_input.command', 1, 20000))), 1, 200) END,
       redact_path(coalesce(:stdin ->> '$.tool_input.file_path', :stdin ->> '$.tool_input.notebook_path')),
       redact_private(substr(coalesce(:stdin ->> '$.tool_input.pattern', :stdin ->> '$.tool_input.url',
                                      :stdin ->> '$.tool_input.query', :stdin ->> '$.tool_input.skill',
                                      -- a Read of part of a file: which part
                                      'offset ' || (:stdin ->> '$.tool_input.offset') || ', limit '
                                        || coalesce(:stdin ->> '$.tool_input.limit', '-'),
                                      'limit ' || (:stdin ->> '$.tool_input.limit')), 1, 200)),
       coalesce(:stdin ->> '$.tool_input.dangerouslyDisableSandbox', 0) IN (1, 'true'),
       :stdin ->> '$.agent_id', :stdin ->> '$.tool_use_id',
       -- an interrupt, the tool's own error, or Claude Code's report of
       -- something else (a rejection, a denial, a block: failure_kind)
       CASE WHEN coalesce(:stdin ->> '$.is_interrupt', 0) IN (1, 'true') THEN 'interrupt'
            ELSE failure_kind(coalesce(:stdin ->> '$.error', '')) END;
-- What is derived from the error, for errors and interrupts only: a
-- rejection's text holds the user's words, which are not kept.
UPDATE temp.payload SET error_key = normalize_error(error), error_raw = substr(error, 1, 500),
                        english = translate_messages(error)
WHERE kind IN ('error', 'interrupt');
UPDATE temp.payload SET signature = error_signature(english), headline = error_headline(english),
                        identified = error_identified(english)
WHERE kind IN ('error', 'interrupt');

-- 1. The event (before anything that may be slow or fail: it commits
-- alone). An error keeps what learning needs later: its signature and
-- identifying line, and what the call acted on (the command's subject and
-- line, the file, another tool's target, whether the sandbox was off), to
-- tell a related success from an unrelated one. Anything else that failed
-- (rejected, denied, blocked, invalid input) is noted as a `tool_blocked`
-- event of its kind, without its text.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, CASE kind WHEN 'error' THEN 'tool_error' WHEN 'interrupt' THEN 'tool_interrupt' ELSE 'tool_blocked' END,
       ts, session_id, path_basename(cwd), cwd,
       CASE WHEN kind IN ('error', 'interrupt')
            -- (json_patch leaves out the members that are null)
            THEN json_patch(json_object('tool', tool, 'error', error_key, 'errorRaw', error_raw,
                             'signature', signature, 'headline', headline, 'subject', subject, 'line', line,
                             'file', file, 'target', target, 'agentId', agent_id, 'toolUseId', tool_use_id),
                            -- an output that does not say what went wrong is not learned from
                            json_object('sandboxOff', CASE WHEN sandbox_off THEN json('true') END,
                                        'identified', CASE WHEN NOT identified THEN json('false') END))
            ELSE json_object('tool', tool, 'kind', kind, 'subject', subject, 'file', file,
                             'agentId', agent_id, 'toolUseId', tool_use_id) END
FROM temp.payload;

-- 2. The best past fix: exact, prefix, then vector stage, on the signature
-- (only for an error, and none when importing a transcript). Advice is
-- given once per error per session and agent (SPEC §6.1): a fix this agent
-- was already told of is not told again, nor counted as used again.
-- At most one row: kb_search gives the best fix only.
CREATE TEMP TABLE hit (id, fix_id, stage, distance, headline, error_normalized, resolution, other_fixes);
INSERT INTO temp.hit
SELECT h.id, h.fix_id, h.stage, h.distance, h.headline, h.error_normalized, h.resolution, h.other_fixes
FROM temp.payload AS p, kb_search(p.error) AS h
WHERE p.kind = 'error' AND :event_ts IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM main.events AS e
    WHERE e.session_id = p.session_id AND e.type = 'advice'
      AND coalesce(e.data ->> '$.agentId', '') = coalesce(p.agent_id, '')
      AND e.data ->> '$.key' = 'fix:' || h.id);

-- Nothing found (a new error, an interrupt, an import): the runner stops
-- here (a gate: see script.rs); what follows does nothing without a hit.
CREATE TEMP TABLE errkb_continue AS SELECT 1 FROM temp.hit;

-- 3. Count the use, once, and note the advice: the fix told (by its key,
-- so that this agent is told it once) and how it was found, for the
-- kb_reused_fixes and kb_advice_hit_rate views. All or nothing.
SAVEPOINT advise;
UPDATE error_kb SET use_count = use_count + 1, last_used = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE id = (SELECT id FROM temp.hit);
UPDATE fixes SET last_used = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = (SELECT fix_id FROM temp.hit);
INSERT INTO fix_counts (fix_id, replica, advised) SELECT fix_id, '', 1 FROM temp.hit WHERE fix_id IS NOT NULL
ON CONFLICT (fix_id, replica) DO UPDATE SET advised = advised + 1;

INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), p.session_id, path_basename(p.cwd), p.cwd,
       json_object('tool', p.tool, 'key', 'fix:' || h.id, 'agentId', p.agent_id, 'toolUseId', p.tool_use_id,
                   'errorKbId', h.id, 'fixId', h.fix_id, 'stage', h.stage, 'distance', h.distance)
FROM temp.hit AS h, temp.payload AS p;
RELEASE advise;

-- 4. The answer (redacted again: a knowledge base written before
-- redaction, or by another program, may hold secrets). The error quoted is
-- the original one the fix was learned from (its identifying line), so the
-- agent can judge whether it is the same problem.
SELECT json_object('hookSpecificOutput', json_object(
         'hookEventName', 'PostToolUseFailure',
         'additionalContext', redact_private(
         '[Reflexion 에러 KB] 이전에 동일 에러를 해결한 이력이 있습니다:' || char(10)
         || '- 에러: ' || coalesce(nullif(headline, ''), error_normalized) || char(10)
         || '- 해결 방법: ' || resolution_text(resolution)
         || CASE WHEN other_fixes > 0 THEN ' (다른 해결 방법 ' || other_fixes || '개)' ELSE '' END || char(10)
         || '이 정보를 참고하여 해결을 시도하세요.')))
FROM temp.hit;
