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

-- The payload's few fields, parsed once (one json_extract with several
-- paths), and the error's key, computed once: an error may be megabytes.
-- Secrets are redacted before anything is derived from the error (its
-- first 20,000 characters: the key and the stored text come from far
-- less, and a cut token past that point is never kept).
-- (Temp tables are declared, then filled: `CREATE TABLE … AS SELECT`
-- compiles its query without SQLite's small-allocation cache, a tenth of
-- a hook's work. `LIMIT -1` keeps each inner level computed once: SQLite
-- would otherwise copy its expressions into the level above, once per use.)
CREATE TEMP TABLE payload (ts, session_id, cwd, tool, error, error_key, error_raw, signature, headline, subject,
                           file, agent_id, tool_use_id, interrupted);
INSERT INTO temp.payload
SELECT coalesce(:event_ts, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
       session_id, cwd, tool, error, normalize_error(error), substr(error, 1, 500),
       error_signature(english), error_headline(english),
       CASE WHEN tool = 'Bash' THEN command_subject(command) END, file, agent_id, tool_use_id, interrupted
FROM (SELECT *, translate_messages(error) AS english
      FROM (SELECT coalesce(json_extract(f, '$[0]'), 'unknown') AS session_id, json_extract(f, '$[1]') AS cwd,
                   json_extract(f, '$[2]') AS tool,
                   redact_secrets(substr(coalesce(json_extract(f, '$[3]'), ''), 1, 20000)) AS error,
                   json_extract(f, '$[4]') AS command,
                   redact_path(coalesce(json_extract(f, '$[5]'), json_extract(f, '$[6]'))) AS file,
                   json_extract(f, '$[7]') AS agent_id, json_extract(f, '$[8]') AS tool_use_id,
                   coalesce(json_extract(f, '$[9]'), 0) IN (1, 'true') AS interrupted
            FROM (SELECT json_extract(:stdin, '$.session_id', '$.cwd', '$.tool_name', '$.error',
                                      '$.tool_input.command', '$.tool_input.file_path',
                                      '$.tool_input.notebook_path', '$.agent_id', '$.tool_use_id',
                                      '$.is_interrupt') AS f)
            LIMIT -1)
      LIMIT -1);

-- 1. The event (before anything that may be slow or fail: it commits
-- alone), with what learning needs later: the signature and identifying
-- line of the error, and what the call acted on (the command's subject,
-- the file), to tell a related success from an unrelated one.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, CASE WHEN interrupted THEN 'tool_interrupt' ELSE 'tool_error' END,
       ts, session_id, path_basename(cwd), cwd,
       json_object('tool', tool, 'error', error_key, 'errorRaw', error_raw,
                   'signature', signature, 'headline', headline, 'subject', subject, 'file', file,
                   'agentId', agent_id, 'toolUseId', tool_use_id)
FROM temp.payload;

-- 2. The best past fix: exact, prefix, then vector stage, on the signature
-- (none for an interrupt, none when importing a transcript). Advice is
-- given once per error per session and agent (SPEC §6.1): a fix this agent
-- was already told of is not told again, nor counted as used again.
-- At most one row: kb_search gives the best fix only.
CREATE TEMP TABLE hit (id, fix_id, stage, distance, headline, error_normalized, resolution, other_fixes);
INSERT INTO temp.hit
SELECT id, fix_id, stage, distance, headline, error_normalized, resolution, other_fixes
FROM kb_search((SELECT error FROM temp.payload WHERE NOT interrupted AND :event_ts IS NULL)) AS h
WHERE NOT EXISTS (
  SELECT 1 FROM main.events
  WHERE session_id = (SELECT session_id FROM temp.payload) AND type = 'advice'
    AND coalesce(data ->> '$.agentId', '') = coalesce((SELECT agent_id FROM temp.payload), '')
    AND data ->> '$.key' = 'fix:' || h.id);

-- Nothing found (a new error, an interrupt, an import): the runner stops
-- here (a gate: see script.rs); what follows does nothing without a hit.
CREATE TEMP TABLE errkb_continue AS SELECT 1 FROM temp.hit;

-- 3. Count the use, once, and note the advice: the fix told (by its key,
-- so that this agent is told it once) and how it was found, for the
-- kb_reused_fixes and kb_advice_hit_rate views. All or nothing.
SAVEPOINT advise;
UPDATE error_kb SET use_count = use_count + 1, last_used = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE id = (SELECT id FROM temp.hit);
UPDATE kb_fixes SET use_count = use_count + 1, last_used = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE id = (SELECT fix_id FROM temp.hit);

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
         'additionalContext', redact_secrets(
         '[Reflexion 에러 KB] 이전에 동일 에러를 해결한 이력이 있습니다:' || char(10)
         || '- 에러: ' || coalesce(nullif(headline, ''), error_normalized) || char(10)
         || '- 해결 방법: ' || resolution_text(resolution)
         || CASE WHEN other_fixes > 0 THEN ' (다른 해결 방법 ' || other_fixes || '개)' ELSE '' END || char(10)
         || '이 정보를 참고하여 해결을 시도하세요.')))
FROM temp.hit;
