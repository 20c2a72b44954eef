-- errkb schema. Idempotent: safe to run on every open, on an empty file or
-- on a database made by the original JavaScript system (same tables).
-- Needs the extension loaded first (vec0 comes from it).

PRAGMA journal_mode = WAL;

CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  v INTEGER DEFAULT 1,
  type TEXT NOT NULL,            -- 'tool_use' | 'tool_error' | ...
  ts TEXT NOT NULL,              -- ISO 8601 UTC, millisecond precision, 'Z'
  session_id TEXT NOT NULL,
  project TEXT,                  -- last path component of project_path
  project_path TEXT,
  data JSON NOT NULL             -- event-specific fields
);
-- Every hook stores an event, and each index of this table is one more
-- page it writes (and later checkpoints): only the lookups the hooks make
-- are indexed, and those that need only some events (partial indexes) cost
-- the others nothing.
-- A session's stream of events (PostToolUse learns from its last 50).
CREATE INDEX IF NOT EXISTS idx_events_session ON events(session_id, ts);
-- A session's errors and the advice it was given (v8), read by every
-- PreToolUse call.
CREATE INDEX IF NOT EXISTS idx_events_session_errors ON events(session_id, ts) WHERE type = 'tool_error';
CREATE INDEX IF NOT EXISTS idx_events_session_advice ON events(session_id) WHERE type = 'advice';
-- A project's recent errors, for a subagent's briefing (v9).
CREATE INDEX IF NOT EXISTS idx_events_project_errors ON events(project_path, ts) WHERE type = 'tool_error';

CREATE TABLE IF NOT EXISTS error_kb (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts TEXT NOT NULL,
  error_normalized TEXT NOT NULL UNIQUE,
  error_raw TEXT,
  resolution TEXT,               -- JSON object: resolvedBy, tool, toolSequence, ...
  resolved_by TEXT,
  tool_sequence TEXT,            -- JSON array of tool names
  use_count INTEGER DEFAULT 0,
  last_used TEXT
);
-- Stage 1 of kb_search (exact) and the UPSERT's conflict target.
CREATE UNIQUE INDEX IF NOT EXISTS idx_error_kb_error ON error_kb(error_normalized);
-- Stage 2 of kb_search (prefix): rows by their first 30 characters, ASCII
-- case-insensitively, most used and newest first, among rows that have a
-- resolution. A query finds its candidates already in the order it wants
-- and stops at the first one whose length is close enough. The expression
-- must stay exactly as sql/search/prefix*.sql write it.
CREATE INDEX IF NOT EXISTS idx_error_kb_prefix
  ON error_kb(substr(error_normalized, 1, 30) COLLATE NOCASE, use_count, ts)
  WHERE resolution IS NOT NULL;

CREATE VIRTUAL TABLE IF NOT EXISTS vec_error_kb USING vec0(
  error_kb_id INTEGER PRIMARY KEY,
  embedding float[384]
);

-- The file names each error_kb row mentions (in error_raw, or the file its
-- fix touched), for the PreToolUse hook's file warnings: an index lookup
-- where `LIKE '%name%'` would scan the table. errkb's writers keep it;
-- the statement below fills it for rows written before (or by others).
CREATE TABLE IF NOT EXISTS error_kb_files (
  file_name TEXT NOT NULL,
  error_kb_id INTEGER NOT NULL,
  PRIMARY KEY (file_name, error_kb_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO error_kb_files (file_name, error_kb_id)
SELECT f.value, kb.id
FROM error_kb AS kb, json_each(kb_file_names(kb.error_raw, kb.resolution)) AS f;

-- The tool_error events turned into a fix (v1–v11; `learned_errors`
-- since v12, below). Made when missing so that the upgrade finds it.
CREATE TABLE IF NOT EXISTS resolved_errors (
  event_id INTEGER PRIMARY KEY,
  error_kb_id INTEGER,
  ts TEXT NOT NULL
);

-- What identifies each error_kb row's error: error_signature() of its text
-- (translated to English with message_catalog), without the boilerplate
-- of tracebacks, loaders and compiler excerpts. kb_search's key: exact and
-- prefix stages on it (range scans of idx_error_kb_signature), and the
-- text the vector stage embeds. A table beside error_kb, not a column, so
-- that error_kb keeps its shape for the original system; errkb's writers
-- fill it, the embedding job fills it for rows others wrote.
CREATE TABLE IF NOT EXISTS error_kb_signatures (
  error_kb_id INTEGER PRIMARY KEY,
  signature TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_error_kb_signature ON error_kb_signatures(signature);

-- The fixes learned for each error (v6–v11; `fixes` since v12, below).
-- Made when missing so that the upgrades below that read it find it.
CREATE TABLE IF NOT EXISTS kb_fixes (
  id INTEGER PRIMARY KEY,
  error_kb_id INTEGER NOT NULL,
  error_headline TEXT NOT NULL DEFAULT '',
  resolution TEXT NOT NULL,
  fix_key TEXT NOT NULL,
  use_count INTEGER NOT NULL DEFAULT 1,
  ts TEXT NOT NULL,
  last_used TEXT,
  UNIQUE (error_kb_id, error_headline, fix_key)
);

-- Localized messages of the machine's gettext catalogs and their English
-- originals, filled by `errkb catalog` (at install, for the user's
-- languages): translate_messages() looks up the pieces of a line by anchor
-- (the longest literal piece of the translation).
CREATE TABLE IF NOT EXISTS message_catalog (
  lang TEXT NOT NULL,
  domain TEXT NOT NULL,
  anchor TEXT NOT NULL,
  msgid TEXT NOT NULL,
  msgstr TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_message_catalog_anchor ON message_catalog(anchor);

CREATE TABLE IF NOT EXISTS analysis_cache (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts TEXT NOT NULL,
  project TEXT,
  days INTEGER,
  input_hash TEXT,
  analysis JSON NOT NULL
);

-- Version 5: secrets are redacted before they are stored. Redact what an
-- earlier version (or the original system) stored, once, with freed
-- pages overwritten. A value whose redaction would no longer be valid
-- JSON (a key block cut short inside it) is replaced by a marker.
PRAGMA secure_delete = ON;
UPDATE events SET data = CASE WHEN json_valid(redact_secrets(data)) THEN redact_secrets(data)
                              ELSE json_object('redacted', json('true')) END
WHERE (SELECT user_version FROM pragma_user_version) < 5 AND redact_secrets(data) <> data;
UPDATE OR IGNORE error_kb SET error_normalized = redact_secrets(error_normalized), error_raw = redact_secrets(error_raw),
       resolution = redact_secrets(resolution)
WHERE (SELECT user_version FROM pragma_user_version) < 5
  AND (redact_secrets(error_normalized) <> error_normalized OR redact_secrets(error_raw) <> error_raw
       OR redact_secrets(resolution) <> resolution);
-- a redacted key that collides with an existing one: the twin stays
DELETE FROM error_kb WHERE (SELECT user_version FROM pragma_user_version) < 5
  AND (redact_secrets(error_normalized) <> error_normalized OR redact_secrets(error_raw) <> error_raw);
PRAGMA secure_delete = OFF;

-- Version 6: search on signatures. Give every row its signature and its
-- current fix as a counted fix, and drop the vectors of the old keys (the
-- embedding job embeds the signatures).
INSERT OR IGNORE INTO error_kb_signatures (error_kb_id, signature)
SELECT id, error_signature(translate_messages(coalesce(error_raw, error_normalized))) FROM error_kb
WHERE (SELECT user_version FROM pragma_user_version) < 6;
INSERT OR IGNORE INTO kb_fixes (error_kb_id, error_headline, resolution, fix_key, use_count, ts, last_used)
SELECT id, coalesce(error_headline(translate_messages(coalesce(error_raw, error_normalized))), ''), resolution,
       fix_key(resolution), max(coalesce(use_count, 1), 1), ts, last_used
FROM error_kb
WHERE (SELECT user_version FROM pragma_user_version) < 6 AND resolution IS NOT NULL;
DELETE FROM vec_error_kb WHERE (SELECT user_version FROM pragma_user_version) < 6;

-- Transcripts errkb learn has read (v7): a file unchanged since is skipped
-- without being read again.
CREATE TABLE IF NOT EXISTS transcript_imports (
  path TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  ts TEXT NOT NULL
);

-- Version 9: indexes no hook reads cost every hook a write. Events by type
-- (the analysis views read few enough to scan), a project's events of
-- every type (its errors are indexed above), and events by tool call id
-- (errkb learn reads those once per run).
DROP INDEX IF EXISTS idx_events_type;
DROP INDEX IF EXISTS idx_events_project_type;
DROP INDEX IF EXISTS idx_events_tool_use;

-- Version 10: kb_learn left the file (in it, every connection parsed its
-- trigger, and most never learn); it is a table of the extension now
-- (src/kb_learn.rs). The view is made first when missing so that the drop
-- finds a view to drop: without one, DROP would find the extension's
-- table, which cannot be dropped, and fail.
CREATE VIEW IF NOT EXISTS main.kb_learn AS SELECT NULL;
DROP VIEW main.kb_learn;

-- Version 11: the history views are TEMP views too (sql/history_views.sql):
-- in the file, every hook parsed them (a tenth of a hook's work), and
-- hooks never read them.
DROP VIEW IF EXISTS main.kb_unresolved_errors;
DROP VIEW IF EXISTS main.kb_frequent_errors;
DROP VIEW IF EXISTS main.kb_reused_fixes;
DROP VIEW IF EXISTS main.kb_advice_hit_rate;

-- Version 12: fixes with a stable id, and counts that add up across
-- machines.
--
-- The fixes learned for each error, each its own row: one error may be
-- fixed in several ways (`Cannot find module 'express'`: install it;
-- `Cannot find module './utils'`: fix the path). error_kb.resolution keeps
-- the latest fix (the original system reads it); kb_search chooses among
-- these.
--   uid             the fix's identity wherever it is learned: fix_uid() of
--                   the error's key, the original error's headline and the
--                   fix's key. A team's replicas name one fix alike.
--   error_headline  the original error's identifying line, values kept
--                   (redacted, paths relative to the project): what
--                   "closest" is judged on, and what the advice quotes
--   fix_key         what makes two fixes the same fix (fix_key())
--   weak            the same command succeeded with nothing changed: kept,
--                   never advised
--   origin          'local', or 'team' for a fix received from the hub
--   project         the project it was learned in (its folder, ~ for home)
CREATE TABLE IF NOT EXISTS fixes (
  id INTEGER PRIMARY KEY,
  uid TEXT NOT NULL UNIQUE,
  error_kb_id INTEGER NOT NULL,
  error_headline TEXT NOT NULL DEFAULT '',
  resolution TEXT NOT NULL,
  fix_key TEXT NOT NULL,
  weak INTEGER NOT NULL DEFAULT 0,
  origin TEXT NOT NULL DEFAULT 'local',
  project TEXT,
  ts TEXT NOT NULL,
  last_used TEXT,
  UNIQUE (error_kb_id, error_headline, fix_key)
);

-- How often each fix was learned, advised and proven, per replica: ''
-- is this machine; a teammate's counts arrive under their replica's id.
-- A fix's count is the sum of its rows, so counts add up across machines
-- and no machine overwrites another's.
--   learned   errors it fixed     sessions  distinct sessions it fixed one in
--   advised   times it was told   helped    told, then the operation passed
--   failed    told, then the same error came back in the same stream
CREATE TABLE IF NOT EXISTS fix_counts (
  fix_id INTEGER NOT NULL,
  replica TEXT NOT NULL DEFAULT '',
  learned INTEGER NOT NULL DEFAULT 0,
  sessions INTEGER NOT NULL DEFAULT 0,
  advised INTEGER NOT NULL DEFAULT 0,
  helped INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (fix_id, replica)
) WITHOUT ROWID;

-- The tool_error events turned into a fix: each is learned at most once
-- (events rows are never updated), with the fix it taught, the success
-- that showed it fixed and the steps kept in the fix (event ids).
CREATE TABLE IF NOT EXISTS learned_errors (
  event_id INTEGER PRIMARY KEY,
  error_kb_id INTEGER,
  fix_id INTEGER,
  session_id TEXT,
  success_event_id INTEGER,
  steps TEXT,
  ts TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_learned_errors_fix ON learned_errors(fix_id, session_id);

INSERT OR IGNORE INTO fixes (id, uid, error_kb_id, error_headline, resolution, fix_key, ts, last_used)
SELECT f.id, fix_uid(kb.error_normalized, f.error_headline, fix_key(f.resolution)), f.error_kb_id,
       f.error_headline, f.resolution, fix_key(f.resolution), f.ts, f.last_used
FROM kb_fixes AS f JOIN error_kb AS kb ON kb.id = f.error_kb_id;
INSERT OR IGNORE INTO fix_counts (fix_id, replica, learned, sessions)
SELECT f.id, '', f.use_count, 1 FROM kb_fixes AS f JOIN fixes ON fixes.id = f.id;
INSERT OR IGNORE INTO learned_errors (event_id, error_kb_id, session_id, ts)
SELECT r.event_id, r.error_kb_id, e.session_id, r.ts FROM resolved_errors AS r LEFT JOIN events AS e ON e.id = r.event_id;
DROP TABLE kb_fixes;
DROP TABLE resolved_errors;

-- The user's home is ~ in what was stored before (v12 stores it so).
UPDATE events SET data = redact_private(data), project_path = redact_private(project_path),
                  project = path_basename(redact_private(project_path))
WHERE (SELECT user_version FROM pragma_user_version) < 12
  AND (redact_private(data) <> data OR redact_private(project_path) <> project_path);
UPDATE OR IGNORE error_kb SET error_raw = redact_private(error_raw), resolution = redact_private(resolution)
WHERE (SELECT user_version FROM pragma_user_version) < 12
  AND (redact_private(error_raw) <> error_raw OR redact_private(resolution) <> resolution);
UPDATE OR IGNORE fixes SET error_headline = redact_private(error_headline), resolution = redact_private(resolution)
WHERE (SELECT user_version FROM pragma_user_version) < 12
  AND (redact_private(error_headline) <> error_headline OR redact_private(resolution) <> resolution);
UPDATE transcript_imports SET path = redact_private(path)
WHERE (SELECT user_version FROM pragma_user_version) < 12 AND redact_private(path) <> path;

-- Version 13: vectors carry their model. The one row names the model that
-- made every vector in vec_error_kb (embed_model()'s "model": its name and
-- the hash of its weights) and their width. The embedding job writes it
-- and re-embeds everything when the model in use is another; the vector
-- stage is skipped while they differ, so vectors of two models are never
-- compared. Vectors stored before are of an unknown model: the job makes
-- them again.
CREATE TABLE IF NOT EXISTS vector_model (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  model TEXT NOT NULL,
  dimensions INTEGER NOT NULL
);
DELETE FROM vec_error_kb
WHERE (SELECT user_version FROM pragma_user_version) < 13 AND NOT EXISTS (SELECT 1 FROM vector_model);

-- Version 14: a team's hub (errkb sync; the hub's side is sql/hub/schema.sql).
--
-- This database among the team's replicas: its id (made when it joins a
-- hub; its counts arrive on other laptops under it), the hub it follows,
-- the receive cursor (a PostgreSQL transaction id: every hub row written
-- by a transaction below it has been received), and how the last syncs
-- went (a failing hub is tried again later and later).
CREATE TABLE IF NOT EXISTS hub_state (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  replica TEXT NOT NULL,
  hub TEXT NOT NULL,
  cursor TEXT NOT NULL DEFAULT '0',
  last_sync TEXT,
  last_error TEXT,
  failures INTEGER NOT NULL DEFAULT 0,
  next_try TEXT
);
-- What the hub has of each fix from here: the fix itself (a row here), and
-- this replica's counts as last sent; counts that grew since are sent again.
CREATE TABLE IF NOT EXISTS hub_sent (
  fix_id INTEGER PRIMARY KEY,
  learned INTEGER NOT NULL DEFAULT 0,
  sessions INTEGER NOT NULL DEFAULT 0,
  advised INTEGER NOT NULL DEFAULT 0,
  helped INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0
);
-- Fixes retracted (errkb forget here, or a teammate's retraction): gone
-- from fixes, never sent or received again. `sent` once the hub has it.
CREATE TABLE IF NOT EXISTS retracted_fixes (
  uid TEXT PRIMARY KEY,
  ts TEXT NOT NULL,
  sent INTEGER NOT NULL DEFAULT 0
);

-- Version 15: the vector stage's first pass. Each vector of vec_error_kb
-- as bits (the sign of each dimension), compared by Hamming distance,
-- with the vector itself beside them (an auxiliary column, read only for
-- the few rows the first pass keeps) for the exact distance. The
-- embedding job fills it (from vec_error_kb, for vectors stored before or
-- by hand) and keeps it in step. Its width follows vec_error_kb's (the
-- job makes both anew for a model of another width).
CREATE VIRTUAL TABLE IF NOT EXISTS vec_error_kb_bits USING vec0(
  error_kb_id INTEGER PRIMARY KEY,
  embedding bit[384],
  +vector BLOB
);


-- Version 16: when the vector stage may read those bits. The one row says
-- every stored vector has its bits: the job writes it when it has given
-- them all theirs, and removes it when the model changes. Without it
-- (never filled, or a fill cut short) the vector stage compares every
-- vector exactly, so none is passed over.
CREATE TABLE IF NOT EXISTS vector_bits_ready (
  one INTEGER PRIMARY KEY CHECK (one = 1)
);

-- Version 17: a team's members. What the hub says each member did is kept
-- apart from this machine's own counts, so that a fix is ranked by how
-- many members learned it or were helped by it, never by what one member
-- claims (see sql/hub/).
--
-- The members who sent each fix received from the hub. `hub_uid` is what
-- the sender called it; the fix itself is named by its content here.
CREATE TABLE IF NOT EXISTS team_fixes (
  fix_id INTEGER NOT NULL,
  member TEXT NOT NULL,
  hub_uid TEXT NOT NULL,
  ts TEXT,
  PRIMARY KEY (fix_id, member)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_team_fixes_hub_uid ON team_fixes(hub_uid, member);
-- Each member's laptops' counts of each fix, as received (fix_counts keeps
-- this machine's own, under replica '').
CREATE TABLE IF NOT EXISTS team_counts (
  fix_id INTEGER NOT NULL,
  member TEXT NOT NULL,
  replica TEXT NOT NULL,
  learned INTEGER NOT NULL DEFAULT 0,
  sessions INTEGER NOT NULL DEFAULT 0,
  advised INTEGER NOT NULL DEFAULT 0,
  helped INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (fix_id, member, replica)
) WITHOUT ROWID;
-- What the hub withdrew: a member's copy of a fix (its retraction, or its
-- row deleted), and members the hub's owner removed. Nothing of theirs is
-- received again. (A retraction of a fix for everyone is retracted_fixes.)
CREATE TABLE IF NOT EXISTS hub_withdrawn (
  hub_uid TEXT NOT NULL,
  member TEXT NOT NULL,
  PRIMARY KEY (hub_uid, member)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hub_removed_members (
  member TEXT PRIMARY KEY
) WITHOUT ROWID;
-- Rows received from the hub that were not stored, and why (the newest
-- 1,000): errkb hub status and doctor show them.
CREATE TABLE IF NOT EXISTS hub_refused (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  member TEXT,
  hub_uid TEXT,
  reason TEXT NOT NULL
);
-- What the team says of each fix, one voice per member (all its laptops
-- together): for it when the member sent it, learned it or was helped by
-- it, against it when it failed the member more often than that. errkb
-- sync writes it from team_fixes and team_counts (sql/hub/team_standing.sql).
CREATE TABLE IF NOT EXISTS team_standing (
  fix_id INTEGER PRIMARY KEY,
  votes_for INTEGER NOT NULL DEFAULT 0,
  votes_against INTEGER NOT NULL DEFAULT 0,
  members INTEGER NOT NULL DEFAULT 0,
  users INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- What older versions stored is made inert and private as redaction now
-- is (terminal escapes and control characters out; user names of every
-- home layout, file:// URLs and URL user names), once, freed pages
-- overwritten. A key that is cleaned into another row's is left as it
-- was (its texts are cleaned). (Version 17; again for version 23, which
-- knows a WSL distribution's home seen from Windows and a quoted Windows
-- profile whose name has spaces.) An event's data is errkb's own JSON,
-- whose texts version 17 and later redacted when they were stored: from
-- then on only the user names are taken out of it, and only where the new
-- layouts may be (redact_secrets takes its `signature` member for a
-- credential).
PRAGMA secure_delete = ON;
UPDATE events SET data = redact_private(data), project_path = redact_private(project_path),
                  project = path_basename(redact_private(project_path))
WHERE (SELECT user_version FROM pragma_user_version) < 17
  AND (redact_private(data) <> data OR redact_private(project_path) <> project_path);
UPDATE events SET data = redact_user_names(data), project_path = redact_private(project_path),
                  project = path_basename(redact_private(project_path))
WHERE (SELECT user_version FROM pragma_user_version) BETWEEN 17 AND 22
  -- (LIKE: a share's host is any case, `\\WSL$`)
  AND typeof(data) = 'text'
  AND (data LIKE '%wsl%' OR data LIKE '%users%' OR project_path LIKE '%wsl%' OR project_path LIKE '%users%')
  AND (redact_user_names(data) <> data OR redact_private(project_path) <> project_path);
-- (version 17 took every event's signature for a credential: each is made
-- again from the error's stored text)
UPDATE events SET data = json_set(data, '$.signature', error_signature(translate_messages(data ->> '$.errorRaw')))
WHERE (SELECT user_version FROM pragma_user_version) < 23 AND type IN ('tool_error', 'tool_interrupt')
  AND CASE WHEN json_valid(data)
           THEN data ->> '$.signature' = '[REDACTED]' AND data ->> '$.errorRaw' IS NOT NULL END;
UPDATE OR IGNORE error_kb SET error_normalized = redact_private(error_normalized)
WHERE (SELECT user_version FROM pragma_user_version) < 23 AND redact_private(error_normalized) <> error_normalized;
UPDATE error_kb SET error_raw = redact_private(error_raw), resolution = redact_private(resolution)
WHERE (SELECT user_version FROM pragma_user_version) < 23
  AND (redact_private(error_raw) <> error_raw OR redact_private(resolution) <> resolution);
UPDATE OR IGNORE fixes SET error_headline = redact_private(error_headline), resolution = redact_private(resolution)
WHERE (SELECT user_version FROM pragma_user_version) < 23
  AND (redact_private(error_headline) <> error_headline OR redact_private(resolution) <> resolution);
UPDATE transcript_imports SET path = redact_private(path)
WHERE (SELECT user_version FROM pragma_user_version) < 23 AND redact_private(path) <> path;
PRAGMA secure_delete = OFF;

-- The signatures are made again by this version's rules (a wrapper line,
-- a passing test's log or a warning no longer stands for the error; a
-- linter's own diagnostics do; the system's refusal relayed by a program,
-- `mkdir: x: Operation not permitted`, is known without the program;
-- version 20: a build tool's report, a test runner's tally, banner or
-- header, act's step lines and npm's warnings are not the error, a
-- formatter's check and bun's error between tests are; version 21: a
-- linter's rule is said with its message and is no path, a bundler's,
-- a package manager's and a container build's report are not the error,
-- a log line's time and an apostrophe inside a word are no values;
-- version 23: Windows PowerShell's error record says its message),
-- from the error's identifying line, or its
-- stored text; the vectors of those that changed are made again by the
-- embedding job.
CREATE TEMP TABLE resigned (error_kb_id INTEGER PRIMARY KEY, signature TEXT);
INSERT INTO temp.resigned
SELECT s.error_kb_id,
       coalesce(nullif(error_signature(translate_messages(
                  (SELECT f.error_headline FROM fixes AS f
                   WHERE f.error_kb_id = s.error_kb_id AND f.error_headline <> '' LIMIT 1))), ''),
                nullif(error_signature(translate_messages(kb.error_raw)), ''), s.signature)
FROM error_kb_signatures AS s JOIN error_kb AS kb ON kb.id = s.error_kb_id
WHERE (SELECT user_version FROM pragma_user_version) BETWEEN 6 AND 22;
DELETE FROM temp.resigned
WHERE signature = (SELECT s.signature FROM error_kb_signatures AS s WHERE s.error_kb_id = resigned.error_kb_id);
UPDATE error_kb_signatures SET signature = (SELECT r.signature FROM temp.resigned AS r
                                            WHERE r.error_kb_id = error_kb_signatures.error_kb_id)
WHERE error_kb_id IN (SELECT error_kb_id FROM temp.resigned);
DELETE FROM vec_error_kb WHERE error_kb_id IN (SELECT error_kb_id FROM temp.resigned);
DELETE FROM vec_error_kb_bits WHERE error_kb_id IN (SELECT error_kb_id FROM temp.resigned);
DROP TABLE temp.resigned;

-- Counts received before members were known (schema 16) were kept under
-- the sending replica's id: they stay that replica's, as a member of its
-- own, and the next sync receives everything again with its members (and
-- makes team_standing).
INSERT OR IGNORE INTO team_counts (fix_id, member, replica, learned, sessions, advised, helped, failed)
SELECT fix_id, 'replica:' || replica, replica, learned, sessions, advised, helped, failed
FROM fix_counts WHERE (SELECT user_version FROM pragma_user_version) < 17 AND replica <> '';
DELETE FROM fix_counts WHERE (SELECT user_version FROM pragma_user_version) < 17 AND replica <> '';
UPDATE hub_state SET cursor = '0' WHERE (SELECT user_version FROM pragma_user_version) < 17;

-- Version 18: the projects each fix was learned in, by identity (the
-- normalised git remote, else the folder: project_identity), so that a
-- file's history and "the same error" come from this project, and a fix
-- from another one says so. A fix learned in two clones of one repository
-- is that project's; a teammate's fix is the project it was sent for.
CREATE TABLE IF NOT EXISTS fix_projects (
  fix_id INTEGER NOT NULL,
  project TEXT NOT NULL,
  PRIMARY KEY (fix_id, project)
) WITHOUT ROWID;
INSERT OR IGNORE INTO fix_projects (fix_id, project)
SELECT l.fix_id, project_identity(e.project_path)
FROM learned_errors AS l JOIN events AS e ON e.id = l.event_id
WHERE (SELECT user_version FROM pragma_user_version) < 18 AND l.fix_id IS NOT NULL AND e.project_path <> '';
INSERT OR IGNORE INTO fix_projects (fix_id, project)
SELECT id, CASE origin WHEN 'team' THEN project ELSE project_identity(project) END
FROM fixes
WHERE (SELECT user_version FROM pragma_user_version) < 18 AND coalesce(project, '') <> '';

-- Version 22: a database that never joined a team's hub keeps none of the
-- hub's own tables (hub_state, hub_sent, team_fixes, team_counts,
-- hub_withdrawn, hub_removed_members, hub_refused): errkb drops them after
-- an upgrade while all are empty, and `errkb hub` makes them again from
-- the statements above when it is used (every process reads the whole
-- schema when it opens the file). The sqlite3 shell's `.read` of this file
-- keeps them.

-- Version 23: an error whose output said nothing identifiable keeps none
-- of its text (it may be the words a user typed on declining a call, which
-- some clients give as the bare result), once, freed pages overwritten.
PRAGMA secure_delete = ON;
UPDATE events SET data = json_remove(data, '$.error', '$.errorRaw', '$.signature', '$.headline')
WHERE (SELECT user_version FROM pragma_user_version) < 23 AND type IN ('tool_error', 'tool_interrupt')
  -- (a row that is not JSON is left as it is; until version 12 events did
  -- not say whether their error was identified: its stored text is asked)
  AND CASE WHEN json_valid(data)
           THEN coalesce(json_extract(data, '$.identified'),
                         CASE WHEN (SELECT user_version FROM pragma_user_version) <= 12
                              THEN error_identified(translate_messages(
                                     coalesce(json_extract(data, '$.errorRaw'), json_extract(data, '$.error')))) END) = 0
                AND json_remove(data, '$.error', '$.errorRaw', '$.signature', '$.headline') <> data END;
PRAGMA secure_delete = OFF;

-- The schema's version: the one place it is written (the runner reads it
-- from here when it is built).
PRAGMA user_version = 23;
