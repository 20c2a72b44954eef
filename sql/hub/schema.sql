-- The hub: a team's shared fixes, in a PostgreSQL database, schema errkb.
-- `errkb hub init URL` runs this file (idempotent, in one transaction,
-- under an advisory lock); `errkb sync` reads and writes these tables.
-- Only what is listed here ever leaves a laptop: no events, sessions,
-- transcripts, user names or absolute paths.
--
-- Every row carries `xid`, the id of the transaction that last wrote it
-- (pg_current_xact_id()). A receiver reads, in one snapshot, the rows with
-- cursor <= xid < the snapshot's xmin, the oldest transaction still
-- running: every transaction below it has ended, so nothing that commits
-- later can land behind the cursor, however late it commits. The next
-- cursor is that xmin. (A sequence would not do: values are taken before
-- commit, so a row with a smaller one can become visible after a receiver
-- has moved past it.)

CREATE SCHEMA IF NOT EXISTS errkb;

-- Which version of this file the hub is at: a replica that knows an older
-- one stops with a message instead of writing what it does not understand.
CREATE TABLE IF NOT EXISTS errkb.meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- One fix, as the replica that first sent it learned it. `uid` is the
-- same on every replica (a hash of the error's key, its headline and the
-- fix's key), so a fix sent twice, or learned on two laptops, is one row.
CREATE TABLE IF NOT EXISTS errkb.fixes (
  uid text PRIMARY KEY CHECK (uid ~ '^[0-9a-f]{32}$'),
  project text NOT NULL,          -- the git remote, normalised: github.com/acme/shop
  error_key text NOT NULL,        -- normalize_error() of the error
  signature text NOT NULL,        -- error_signature()
  headline text NOT NULL,         -- the identifying line, values kept
  resolution jsonb NOT NULL,      -- the fix: steps, edits (hunks), the command that worked
  fix_key text NOT NULL,
  sent_by text NOT NULL,          -- the replica that sent it first
  sent_at timestamptz NOT NULL DEFAULT now(),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX IF NOT EXISTS fixes_xid ON errkb.fixes (xid);

-- How often each replica learned, was told, and was helped or failed by
-- each fix: its own running totals. Only that replica writes its row, and
-- a write keeps the larger of old and new for each count, so a resend or
-- a stale concurrent send changes nothing. A fix's team count is the sum
-- of its rows.
CREATE TABLE IF NOT EXISTS errkb.counts (
  uid text NOT NULL,
  replica text NOT NULL,
  learned bigint NOT NULL DEFAULT 0 CHECK (learned >= 0),
  sessions bigint NOT NULL DEFAULT 0 CHECK (sessions >= 0),
  advised bigint NOT NULL DEFAULT 0 CHECK (advised >= 0),
  helped bigint NOT NULL DEFAULT 0 CHECK (helped >= 0),
  failed bigint NOT NULL DEFAULT 0 CHECK (failed >= 0),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  PRIMARY KEY (uid, replica)
);
CREATE INDEX IF NOT EXISTS counts_xid ON errkb.counts (xid);

-- Fixes someone retracted (errkb forget): removed from the hub, refused if
-- sent again, and removed on every replica that receives this row.
CREATE TABLE IF NOT EXISTS errkb.retractions (
  uid text PRIMARY KEY,
  replica text NOT NULL,
  retracted_at timestamptz NOT NULL DEFAULT now(),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX IF NOT EXISTS retractions_xid ON errkb.retractions (xid);

INSERT INTO errkb.meta (key, value) VALUES ('schema_version', '1')
ON CONFLICT (key) DO UPDATE SET value = excluded.value
WHERE errkb.meta.value::int < excluded.value::int;
