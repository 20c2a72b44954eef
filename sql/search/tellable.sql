-- tellable(errors, session_id, agent_id, project): the fixes of some
-- errors, with what their standing is made of and where they were learned.
-- The table function (src/standing.rs) weighs them by the one rule (which
-- fixes are advisable, in which order), takes out what this agent was told
-- (told.sql) or applied (applied.sql) in this session, and numbers the
-- rest. Compiled into the extension.
--   ?1 the error_kb rows: a JSON array of their ids (the function takes
--      one id too)
--   ?2 the project's identity (project_identity of the folder); NULL: any
-- The rule and the order are written in Rust, not here: this statement is
-- compiled in every hook that tells something, and SQLite took about
-- three times as long to compile the rule's expressions and the sort as
-- to compile this plain read of the columns they are made of (DESIGN.md).
--   any_project  the first project the fix was learned in (fix_projects);
--              NULL: where it was learned is not known
--   here       it was learned in project ?2 (1 when ?2 is NULL)
--   legacy_uses  a row an older writer filled (error_kb with no `fixes`
--              row, so no fix id) is its own fix, named 'kb:<id>': its
--              uses, as stored; NULL for every fix of the `fixes` table
-- From `weak` on, the columns are fix_standing.sql's, in its order; then
-- when the fix was last told (kb_search gives it).
SELECT f.error_kb_id, f.id, f.uid, f.fix_key, f.resolution, f.error_headline, f.origin, f.ts,
       (SELECT min(p.project) FROM main.fix_projects AS p WHERE p.fix_id = f.id) AS any_project,
       ?2 IS NULL OR EXISTS (SELECT 1 FROM main.fix_projects AS p WHERE p.fix_id = f.id AND p.project = ?2) AS here,
       NULL AS legacy_uses,
       f.weak, c.learned, c.helped, c.failed, c.sessions, c.advised,
       t.votes_for, t.votes_against, t.members, t.users, f.last_used
FROM main.fixes AS f
LEFT JOIN main.fix_counts AS c ON c.fix_id = f.id AND c.replica = ''
LEFT JOIN main.team_standing AS t ON t.fix_id = f.id
WHERE f.error_kb_id IN (SELECT value FROM json_each(?1))
UNION ALL
SELECT kb.id, NULL, 'kb:' || kb.id, NULL, kb.resolution, '', 'local', kb.ts, NULL, 1, kb.use_count,
       0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM main.error_kb AS kb
-- (which errors have no fix is asked of the index the branch above read:
-- an entry's own row is read only when it is such a row)
WHERE kb.id IN (SELECT value FROM json_each(?1)
                WHERE NOT EXISTS (SELECT 1 FROM main.fixes AS f WHERE f.error_kb_id = value))
  AND kb.resolution IS NOT NULL
