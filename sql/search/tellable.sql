-- tellable(errors, session_id, agent_id, project): the fixes of some
-- errors that may be told to this agent now, best first (rank 1). The one
-- rule for what is told: kb_search, the failure advice, the Bash note, a
-- file's history and a subagent's briefing all read it. Compiled into the
-- extension.
--   ?1 the error_kb rows: a JSON array of their ids (the function takes
--      one id too)
--   ?2 the project's identity (project_identity of the folder); NULL: any
--   (the function's session_id and agent_id: see below)
--
-- May be told: a fix fix_standing advises (not weak, not failing here,
-- no more voices against it than for it) that this agent was not told in
-- this session by any hook (told.sql: the 'advice' events name the fixes
-- told), and that this agent did not apply itself in this session
-- (applied.sql: an error of its stream that the fix was learned from).
-- This statement gives the advised fixes in their order; the table
-- function takes out what was told or applied, when given a session
-- (two plain statements compile in about half the time the same sets took
-- as subqueries of this one: DESIGN.md).
-- "The same fix" is its content (fix_key): one fix learned under two
-- errors is told once.
-- The order: this machine's own fixes first (a teammate's never ranks
-- before them, whatever project it says it was for), among them those
-- learned in this project first; then fix_standing's (the voices for it,
-- sessions, uses, the newest).
--   this_project  1: learned in this project (or where it was learned is
--                 not known); 0: only elsewhere, named in `elsewhere`
-- A row an older writer filled (error_kb with no `fixes` row) is its own
-- fix, named 'kb:<id>'.
WITH fix AS (
  SELECT f.error_kb_id, f.id AS fix_id, f.uid, f.fix_key, f.resolution, f.error_headline AS headline, f.origin, f.ts,
         s.own, s.support, s.sessions, s.uses,
         (SELECT min(p.project) FROM main.fix_projects AS p WHERE p.fix_id = f.id) AS any_project,
         ?2 IS NULL OR EXISTS (SELECT 1 FROM main.fix_projects AS p WHERE p.fix_id = f.id AND p.project = ?2)
           AS here
  FROM main.fixes AS f JOIN fix_standing(f.id) AS s
  WHERE f.error_kb_id IN (SELECT value FROM json_each(?1)) AND s.advisable
  UNION ALL
  SELECT kb.id, NULL, 'kb:' || kb.id, NULL, kb.resolution, '', 'local', kb.ts, 1, 0, 0, kb.use_count, NULL, 1
  FROM main.error_kb AS kb
  -- (which errors have no fix is asked of the index the branch above read:
  -- an entry's own row is read only when it is such a row)
  WHERE kb.id IN (SELECT value FROM json_each(?1)
                  WHERE NOT EXISTS (SELECT 1 FROM main.fixes AS f WHERE f.error_kb_id = value))
    AND kb.resolution IS NOT NULL
)
SELECT error_kb_id, fix_id, uid, fix_key, resolution, headline, origin, here OR any_project IS NULL AS this_project,
       CASE WHEN NOT here AND any_project IS NOT NULL THEN any_project END AS elsewhere,
       own, support, sessions, uses, ts
FROM fix
-- (the table function numbers the rows in this order: their rank; a
-- window function here cost a third of compiling this, in every hook)
ORDER BY own DESC, this_project DESC, support DESC, sessions DESC, uses DESC, ts DESC
