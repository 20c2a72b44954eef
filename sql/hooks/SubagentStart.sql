-- SubagentStart: give a code-writing subagent this project's recent errors
-- (with their fixes) and the cached project rules. Text lookups only.
-- :stdin  Claude Code's payload: session_id, cwd, agent_id, agent_type, ...
-- Prints the hook's JSON answer when there is something to say.
--
-- Which agents get this is decided by the hook's matcher (hooks.rs: code
-- agents only), so other agents start no process at all.

CREATE TEMP TABLE payload (session_id, cwd, agent_id);
INSERT INTO temp.payload
SELECT coalesce(:stdin ->> '$.session_id', 'unknown'), redact_private(:stdin ->> '$.cwd'), :stdin ->> '$.agent_id';

-- The project's distinct recent errors (by key, among its last 30; its
-- errors are indexed: idx_events_project_errors), each with its best fix
-- when one may be told (not weak, not failing more than it helped), those
-- with a fix first, then the newest.
CREATE TEMP TABLE briefing (headline, tool, fix_uid, resolution, origin, ts);
INSERT INTO temp.briefing
SELECT project_relative(coalesce(nullif(e.headline, ''), e.error), p.cwd), e.tool,
       f.uid, f.resolution, f.origin, e.ts
FROM temp.payload AS p
CROSS JOIN (SELECT data ->> '$.error' AS error, max(data ->> '$.headline') AS headline,
                   data ->> '$.tool' AS tool, max(ts) AS ts
            FROM (SELECT data, ts FROM main.events
                  WHERE project_path = (SELECT cwd FROM temp.payload) AND type = 'tool_error'
                  ORDER BY ts DESC, id DESC LIMIT 30)
            GROUP BY data ->> '$.error') AS e
LEFT JOIN main.error_kb AS kb ON kb.error_normalized = e.error
LEFT JOIN main.fixes AS f ON f.id = (
  SELECT x.id FROM main.fixes AS x JOIN fix_standing(x.id) AS s
  WHERE x.error_kb_id = kb.id AND s.advisable
  ORDER BY s.own DESC, s.support DESC, s.sessions DESC, s.uses DESC, x.ts DESC
  LIMIT 1);

-- Up to 3 claude_md rules from the newest analysis (this project's or a
-- global one) of the last 48 hours.
CREATE TEMP TABLE rules (rule);
INSERT INTO temp.rules
SELECT coalesce(json_extract(s.value, '$.rule'), json_extract(s.value, '$.summary'))
FROM (SELECT analysis FROM main.analysis_cache
      WHERE (project = path_basename((SELECT cwd FROM temp.payload)) OR project IS NULL OR project = '')
        AND ts >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-48 hours')
        AND json_valid(analysis)
      ORDER BY ts DESC LIMIT 1) AS a,
     json_each(a.analysis, '$.suggestions') AS s
WHERE json_extract(s.value, '$.type') = 'claude_md'
  AND coalesce(json_extract(s.value, '$.project'), '') IN ('', path_basename((SELECT cwd FROM temp.payload)))
  AND coalesce(json_extract(s.value, '$.rule'), json_extract(s.value, '$.summary')) IS NOT NULL
LIMIT 3;

-- The briefing (render_advice: as many whole entries as fit in 500
-- characters, and how many more there are).
CREATE TEMP TABLE told (text);
INSERT INTO temp.told
SELECT render_advice('briefing', json_object(
         'errors', json((SELECT json_group_array(json_object(
                      'headline', headline, 'tool', tool, 'fix', resolution,
                      'team', json(CASE WHEN origin = 'team' THEN 'true' ELSE 'false' END)))
                    FROM (SELECT * FROM temp.briefing ORDER BY resolution IS NULL, ts DESC))),
         'rules', json((SELECT json_group_array(rule) FROM temp.rules))));

-- Noted as what this subagent was told (the fixes whose error the text
-- shows), so that no hook tells it one of them again.
INSERT INTO events (v, type, ts, session_id, project, project_path, data)
SELECT 1, 'advice', utc_now(), p.session_id, path_basename(p.cwd), p.cwd,
       json_object('tool', 'Agent', 'kind', 'briefing', 'key', 'briefing',
                   'fixes', json((SELECT json_group_array(b.fix_uid) FROM temp.briefing AS b
                                  WHERE b.fix_uid IS NOT NULL AND instr(t.text, substr(b.headline, 1, 40)) > 0)),
                   'agentId', p.agent_id)
FROM temp.payload AS p, temp.told AS t
WHERE t.text IS NOT NULL AND p.agent_id IS NOT NULL;

SELECT json_object('hookSpecificOutput', json_object('hookEventName', 'SubagentStart', 'additionalContext', text))
FROM temp.told
WHERE text IS NOT NULL;
