-- SubagentStart: give a code-writing subagent the error the main agent is
-- in the middle of and this project's recent errors (with the fixes it may
-- be told), and the cached project rules. Text lookups only: the current
-- error's fix is the one the failure advice found for it, when the one
-- rule lets this subagent be told it.
-- :stdin  Claude Code's payload: session_id, cwd, agent_id, agent_type, ...
-- :agent, :turn_id  the agent the call came from and its turn, when it is
--            not Claude Code (the runner binds 'codex' and Codex's turn):
--            every event stored says so; NULL: nothing is added
-- Prints the hook's JSON answer when there is something to say.
--
-- Which agents get this is decided by the hook's matcher (hooks.rs: code
-- agents only), so other agents start no process at all.

CREATE TEMP TABLE payload (session_id, cwd, agent_id, project);
INSERT INTO temp.payload
SELECT coalesce(:stdin ->> '$.session_id', 'unknown'), redact_private(:stdin ->> '$.cwd'), :stdin ->> '$.agent_id',
       NULL;
UPDATE temp.payload SET project = project_identity(cwd);

-- What the subagent is to know first: the error the main agent is in the
-- middle of (its latest error in this session, among its last 5 steps,
-- not fixed yet), then this project's recent errors (its last 10 in this
-- folder: idx_events_project_errors), one per signature; not an error
-- whose output said nothing identifiable (kept without its text). (The briefing
-- has room for a few; each error looked at costs every subagent's start
-- the reads of its fixes.)
CREATE TEMP TABLE recent (signature, headline, error_raw, error, tool, ts, current, tool_use_id);
INSERT INTO temp.recent
SELECT coalesce(e.data ->> '$.signature', e.data ->> '$.error'), coalesce(nullif(e.data ->> '$.headline', ''),
       e.data ->> '$.error'), e.data ->> '$.errorRaw', e.data ->> '$.error', e.data ->> '$.tool', e.ts, 1,
       e.data ->> '$.toolUseId'
FROM temp.payload AS p
CROSS JOIN (SELECT x.id, x.type, x.data, x.ts FROM main.events AS x, temp.payload AS q
            WHERE x.session_id = q.session_id AND x.type IN ('tool_error', 'tool_use')
              AND x.data ->> '$.agentId' IS NULL
            ORDER BY x.ts DESC, x.id DESC LIMIT 5) AS e
WHERE e.type = 'tool_error' AND (e.data ->> '$.identified') IS NOT 0
  AND NOT EXISTS (SELECT 1 FROM main.learned_errors AS l WHERE l.event_id = e.id)
ORDER BY e.ts DESC, e.id DESC
LIMIT 1;
INSERT INTO temp.recent
SELECT coalesce(data ->> '$.signature', data ->> '$.error'), max(coalesce(nullif(data ->> '$.headline', ''),
       data ->> '$.error')), max(data ->> '$.errorRaw'), max(data ->> '$.error'), max(data ->> '$.tool'), max(ts), 0,
       NULL
FROM (SELECT data, ts FROM main.events
      WHERE project_path = (SELECT cwd FROM temp.payload) AND type = 'tool_error'
      ORDER BY ts DESC, id DESC LIMIT 10)
WHERE (data ->> '$.identified') IS NOT 0
  AND coalesce(data ->> '$.signature', data ->> '$.error') NOT IN (SELECT signature FROM temp.recent)
GROUP BY coalesce(data ->> '$.signature', data ->> '$.error');

-- Each with the fix the one rule lets this subagent be told first: for
-- the current error, the fix the failure advice told the main agent
-- moments ago (the same or a similar error's: its 'advice' event names
-- the entry and the fix), else its own entry's; for the others, their own
-- entry's. One tellable for all the entries: what was told and applied in
-- this session is read once.
CREATE TEMP TABLE entries (entry, advised_fix, headline, tool, ts, current);
INSERT INTO temp.entries
SELECT coalesce(a.advice ->> '$.errorKbId', kb.id), a.advice ->> '$.fixId', r.headline, r.tool, r.ts, r.current
FROM temp.recent AS r CROSS JOIN temp.payload AS p
LEFT JOIN (SELECT x.data AS advice, x.data ->> '$.toolUseId' AS tool_use_id
           FROM main.events AS x, temp.payload AS q
           WHERE x.session_id = q.session_id AND x.type = 'advice' AND x.data ->> '$.kind' = 'failure'
             AND x.data ->> '$.toolUseId' = (SELECT tool_use_id FROM temp.recent WHERE current)
           ORDER BY x.id DESC LIMIT 1) AS a ON r.current AND a.tool_use_id = r.tool_use_id
LEFT JOIN main.error_kb AS kb ON kb.error_normalized = r.error;
CREATE TEMP TABLE may_tell (error_kb_id, fix_id, uid, resolution, origin, elsewhere, headline, rank);
INSERT INTO temp.may_tell
SELECT error_kb_id, fix_id, uid, resolution, origin, elsewhere, headline, rank
FROM tellable((SELECT json_group_array(entry) FROM temp.entries WHERE entry IS NOT NULL),
              (SELECT session_id FROM temp.payload), (SELECT agent_id FROM temp.payload),
              (SELECT project FROM temp.payload));
CREATE TEMP TABLE briefing (headline, tool, fix_uid, resolution, origin, elsewhere, similar, ts, current);
INSERT INTO temp.briefing
SELECT project_relative(e.headline, p.cwd), e.tool, t.uid, t.resolution, t.origin, t.elsewhere,
       project_relative(nullif(t.headline, ''), p.cwd), e.ts, 1
FROM temp.entries AS e CROSS JOIN temp.payload AS p
LEFT JOIN temp.may_tell AS t ON t.error_kb_id = e.entry
WHERE e.current
ORDER BY t.fix_id IS e.advised_fix DESC, t.rank
LIMIT 1;
-- (each other entry's best fix: its first)
INSERT INTO temp.briefing
SELECT project_relative(e.headline, p.cwd), e.tool, t.uid, t.resolution, t.origin, t.elsewhere, NULL, e.ts, 0
FROM temp.entries AS e CROSS JOIN temp.payload AS p
LEFT JOIN (SELECT error_kb_id, uid, resolution, origin, elsewhere, min(rank)
           FROM temp.may_tell GROUP BY error_kb_id) AS t ON t.error_kb_id = e.entry
WHERE NOT e.current;

-- The briefing (render_advice: as many whole entries as fit in 500
-- characters, and how many more there are): the current error first, then
-- those with a fix it may be told, then the others, newest first; and up
-- to 3 claude_md rules from the newest analysis (this project's or a
-- global one) of the last 48 hours. (The rules are read here, not staged
-- in a table: making a temp table cost more than the statement.)
CREATE TEMP TABLE told (text);
INSERT INTO temp.told
SELECT render_advice('briefing', json_object(
         'errors', json((SELECT json_group_array(json_object(
                      'headline', headline, 'tool', tool, 'fix', resolution, 'elsewhere', elsewhere,
                      'similar', similar,
                      'team', json(CASE WHEN origin = 'team' THEN 'true' ELSE 'false' END)))
                    FROM (SELECT * FROM temp.briefing ORDER BY current DESC, resolution IS NULL, ts DESC))),
         'rules', json((SELECT json_group_array(rule) FROM (
           SELECT coalesce(json_extract(s.value, '$.rule'), json_extract(s.value, '$.summary')) AS rule
           FROM (SELECT analysis FROM main.analysis_cache
                 WHERE (project = path_basename((SELECT cwd FROM temp.payload)) OR project IS NULL OR project = '')
                   AND ts >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-48 hours')
                   AND json_valid(analysis)
                 ORDER BY ts DESC LIMIT 1) AS a,
                json_each(a.analysis, '$.suggestions') AS s
           WHERE json_extract(s.value, '$.type') = 'claude_md'
             AND coalesce(json_extract(s.value, '$.project'), '') IN ('', path_basename((SELECT cwd FROM temp.payload)))
             AND coalesce(json_extract(s.value, '$.rule'), json_extract(s.value, '$.summary')) IS NOT NULL
           LIMIT 3)))));

-- Noted as what this subagent was told (the fixes whose error the text
-- shows), so that no hook tells it one of them again.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', utc_now(), p.session_id, path_basename(p.cwd), p.cwd,
       json_patch(json_object('tool', 'Agent', 'kind', 'briefing', 'key', 'briefing',
                              'fixes', json((SELECT json_group_array(b.fix_uid) FROM temp.briefing AS b
                                             WHERE b.fix_uid IS NOT NULL
                                               AND instr(t.text, substr(b.headline, 1, 40)) > 0)),
                              'agentId', p.agent_id),
                  json_object('agent', :agent, 'turnId', :turn_id))
FROM temp.payload AS p, temp.told AS t
WHERE t.text IS NOT NULL AND p.agent_id IS NOT NULL;

SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'SubagentStart', 'additionalContext', text))
FROM temp.told
WHERE text IS NOT NULL;
