-- The hub: a team's shared fixes, in a PostgreSQL database, schema errkb.
-- `errkb hub init URL` runs this file as the database's owner (idempotent,
-- in one transaction, under a lock members cannot take): it creates the schema, or
-- upgrades an older one in place, keeping its rows. `errkb sync` reads and
-- writes these tables as a member. Only what is listed here ever leaves a
-- laptop: no events, sessions, transcripts, user names or absolute paths.
--
-- Who may do what (the server decides, not the laptops):
--   - every member has a login of its own in role errkb_member; the server
--     stamps each row with that login (`member`, session_user) and its
--     own clock (`sent_at`), whatever the laptop sends;
--   - row-level security: a member adds rows only as itself, changes and
--     deletes only its own, writes counts only under its own name, and
--     retracts only its own fixes;
--   - the owner (who ran hub init, or a login in errkb_admin) may retract
--     any fix for everyone and remove a member with all it sent
--     (errkb.remove_member).
--
-- Every row carries `xid`, the id of the transaction that last wrote it
-- (pg_current_xact_id()). A receiver reads, in one snapshot, the rows
-- after its cursor in (xid, keys) order, along the *_order indexes, and
-- keeps with its cursor the transactions that were still running below
-- it: their rows are read once they have ended. A sequence would not do:
-- values are taken before commit, so a row with a smaller one can become
-- visible after a receiver has moved past it.

CREATE SCHEMA IF NOT EXISTS errkb;

-- Which version of this file the hub is at: a replica that knows an older
-- one stops with a message instead of writing what it does not understand.
CREATE TABLE IF NOT EXISTS errkb.meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

-- The members' role, and the owner's helpers. Roles belong to the whole
-- server: a second hub on it shares them.
DO $$ BEGIN
  CREATE ROLE errkb_member NOLOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
DO $$ BEGIN
  CREATE ROLE errkb_admin NOLOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;

-- Whether the logged-in user may act for the whole team: the schema's
-- owner (and superusers), or a login in errkb_admin. (Every function here
-- searches pg_catalog, then the session's temporary tables last: a member's
-- temporary table cannot stand in for a catalog.)
CREATE OR REPLACE FUNCTION errkb.is_admin() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT pg_has_role(session_user, (SELECT nspowner FROM pg_catalog.pg_namespace WHERE nspname = 'errkb'), 'MEMBER')
      OR pg_has_role(session_user, 'errkb_admin', 'MEMBER')
$$;

-- One fix, as one member sent it. `uid` is what the sending laptop calls
-- the fix (a hash of the error's key, its headline and the fix's key): the
-- same fix sent by two members is two rows, one each, so neither can
-- replace, bury or speak for the other's. Receivers do not trust `uid`:
-- they name what they store by its content.
CREATE TABLE IF NOT EXISTS errkb.fixes (
  uid text NOT NULL CHECK (uid ~ '^[0-9a-f]{32}$'),
  member text NOT NULL DEFAULT session_user,  -- who sent it: set by the server
  replica text NOT NULL,          -- which of the member's laptops
  project text NOT NULL,          -- the git remote, normalised: github.com/acme/shop
  error_key text NOT NULL,        -- normalize_error() of the error
  signature text NOT NULL,        -- error_signature()
  headline text NOT NULL,         -- the identifying line, values kept
  resolution jsonb NOT NULL,      -- the fix: steps, edits (hunks), the command that worked
  fix_key text NOT NULL,
  sent_at timestamptz NOT NULL DEFAULT now(),  -- set by the server
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  PRIMARY KEY (uid, member)
);

-- How often each laptop of each member learned, was told, and was helped
-- or failed by each fix: its own running totals, written only by that
-- member. A write keeps the larger of old and new for each count, so a
-- resend or a stale concurrent send changes nothing. Receivers rank a fix
-- by how many members learned it or were helped, not by these numbers.
CREATE TABLE IF NOT EXISTS errkb.counts (
  uid text NOT NULL,
  replica text NOT NULL,
  learned bigint NOT NULL DEFAULT 0 CHECK (learned >= 0),
  sessions bigint NOT NULL DEFAULT 0 CHECK (sessions >= 0),
  advised bigint NOT NULL DEFAULT 0 CHECK (advised >= 0),
  helped bigint NOT NULL DEFAULT 0 CHECK (helped >= 0),
  failed bigint NOT NULL DEFAULT 0 CHECK (failed >= 0),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);

-- Retracted fixes: `member`'s copy of `uid` withdrawn (its own, or, by the
-- owner, anyone's), or everyone's when `member` is '' (only the owner).
-- Kept for good: what was retracted is refused if sent again, and removed
-- on every laptop that receives the row.
CREATE TABLE IF NOT EXISTS errkb.retractions (
  uid text NOT NULL,
  retracted_at timestamptz NOT NULL DEFAULT now(),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);

-- Members the owner removed (errkb.remove_member): what they sent is gone
-- from the hub, and every laptop drops it at its next sync.
CREATE TABLE IF NOT EXISTS errkb.removed_members (
  member text PRIMARY KEY,
  removed_by text NOT NULL DEFAULT session_user,
  removed_at timestamptz NOT NULL DEFAULT now(),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);

-- Schema 1 knew laptops, not members: its rows name the sending replica.
-- Upgraded, they belong to 'replica:<id>' (one voice of its own, which no
-- login can act as) until the owner gives them to their member
-- (errkb.assign_replica); the assignment is a row every laptop receives.
CREATE TABLE IF NOT EXISTS errkb.replica_claims (
  replica text PRIMARY KEY,
  member text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);

-- ---- Upgrade from schema 1, in place --------------------------------------
-- (Each step does nothing on a hub made at schema 2.)
ALTER TABLE errkb.fixes ADD COLUMN IF NOT EXISTS member text;
ALTER TABLE errkb.fixes ADD COLUMN IF NOT EXISTS replica text;
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns
             WHERE table_schema = 'errkb' AND table_name = 'fixes' AND column_name = 'sent_by') THEN
    UPDATE errkb.fixes SET member = 'replica:' || sent_by, replica = sent_by WHERE member IS NULL;
    ALTER TABLE errkb.fixes DROP COLUMN sent_by;
    ALTER TABLE errkb.fixes DROP CONSTRAINT IF EXISTS fixes_pkey;
    ALTER TABLE errkb.fixes ADD PRIMARY KEY (uid, member);
  END IF;
END $$;
ALTER TABLE errkb.fixes ALTER COLUMN member SET DEFAULT session_user, ALTER COLUMN member SET NOT NULL,
                        ALTER COLUMN replica SET NOT NULL;

ALTER TABLE errkb.counts ADD COLUMN IF NOT EXISTS member text;
UPDATE errkb.counts SET member = 'replica:' || replica WHERE member IS NULL;
ALTER TABLE errkb.counts ALTER COLUMN member SET DEFAULT session_user, ALTER COLUMN member SET NOT NULL;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'counts_member_pkey') THEN
    ALTER TABLE errkb.counts DROP CONSTRAINT IF EXISTS counts_pkey;
    ALTER TABLE errkb.counts ADD CONSTRAINT counts_member_pkey PRIMARY KEY (uid, member, replica);
  END IF;
END $$;

-- Schema 1's retractions removed a fix for everyone, and kept the sender's
-- replica: they stay retractions for everyone.
ALTER TABLE errkb.retractions ADD COLUMN IF NOT EXISTS member text;
ALTER TABLE errkb.retractions ADD COLUMN IF NOT EXISTS retracted_by text;
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns
             WHERE table_schema = 'errkb' AND table_name = 'retractions' AND column_name = 'replica') THEN
    UPDATE errkb.retractions SET member = '', retracted_by = 'replica:' || replica WHERE member IS NULL;
    ALTER TABLE errkb.retractions DROP COLUMN replica;
  END IF;
END $$;
ALTER TABLE errkb.retractions ALTER COLUMN member SET NOT NULL,
                              ALTER COLUMN retracted_by SET DEFAULT session_user,
                              ALTER COLUMN retracted_by SET NOT NULL;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'retractions_member_pkey') THEN
    ALTER TABLE errkb.retractions DROP CONSTRAINT IF EXISTS retractions_pkey;
    ALTER TABLE errkb.retractions ADD CONSTRAINT retractions_member_pkey PRIMARY KEY (uid, member);
  END IF;
END $$;

-- Sizes: nothing errkb sends comes near these; a row past them is not a
-- fix. (NOT VALID: rows stored before are left as they are; receivers
-- check every row anyway.)
DO $$ BEGIN
  ALTER TABLE errkb.fixes ADD CONSTRAINT fixes_size CHECK (
    octet_length(project) <= 400 AND octet_length(error_key) <= 1000 AND octet_length(signature) <= 2000
    AND octet_length(headline) <= 2000 AND octet_length(fix_key) <= 4000 AND octet_length(replica) <= 64
    AND octet_length(resolution::text) <= 65536) NOT VALID;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
DO $$ BEGIN
  ALTER TABLE errkb.counts ADD CONSTRAINT counts_size CHECK (
    octet_length(uid) <= 64 AND octet_length(replica) <= 64
    AND greatest(learned, sessions, advised, helped, failed) <= 1000000) NOT VALID;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;

-- The order receivers read each table in (xid, then the row's keys, cut
-- to size as they read them): an index on exactly that gives the first
-- rows after a cursor at once, however many rows one transaction wrote.
CREATE INDEX IF NOT EXISTS fixes_order ON errkb.fixes (xid, left(uid, 64), left(member, 256));
CREATE INDEX IF NOT EXISTS counts_order
  ON errkb.counts (xid, left(uid, 64), (left(member, 256) || '/' || left(replica, 64)));
CREATE INDEX IF NOT EXISTS retractions_order ON errkb.retractions (xid, left(uid, 64), left(member, 256));
CREATE INDEX IF NOT EXISTS removed_members_order ON errkb.removed_members (xid, left(member, 256));
CREATE INDEX IF NOT EXISTS replica_claims_order ON errkb.replica_claims (xid, left(replica, 64), left(member, 256));
DROP INDEX IF EXISTS errkb.fixes_xid, errkb.counts_xid, errkb.retractions_xid, errkb.removed_members_xid,
                     errkb.replica_claims_xid;
CREATE INDEX IF NOT EXISTS fixes_member ON errkb.fixes (member);
CREATE INDEX IF NOT EXISTS counts_member ON errkb.counts (member);
CREATE INDEX IF NOT EXISTS retractions_by ON errkb.retractions (retracted_by);

-- ---- The server says who and when ------------------------------------------
-- Whatever a laptop (or a member with psql) puts in these columns, the row
-- is stamped with the login that wrote it, the server's clock and the
-- writing transaction.
CREATE OR REPLACE FUNCTION errkb.stamp() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  -- (the owner may move rows to a member: errkb.assign_replica)
  IF TG_TABLE_NAME IN ('fixes', 'counts') AND (TG_OP = 'INSERT' OR NOT errkb.is_admin()) THEN
    NEW.member := session_user;
  END IF;
  IF TG_TABLE_NAME = 'fixes' THEN
    NEW.sent_at := now();
  ELSIF TG_TABLE_NAME = 'retractions' THEN
    NEW.retracted_by := session_user;
    NEW.retracted_at := now();
  ELSIF TG_TABLE_NAME = 'removed_members' THEN
    NEW.removed_by := session_user;
    NEW.removed_at := now();
  END IF;
  NEW.xid := pg_current_xact_id();
  RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS stamp ON errkb.fixes;
CREATE TRIGGER stamp BEFORE INSERT ON errkb.fixes FOR EACH ROW EXECUTE FUNCTION errkb.stamp();
DROP TRIGGER IF EXISTS stamp ON errkb.counts;
CREATE TRIGGER stamp BEFORE INSERT OR UPDATE ON errkb.counts FOR EACH ROW EXECUTE FUNCTION errkb.stamp();
DROP TRIGGER IF EXISTS stamp ON errkb.retractions;
CREATE TRIGGER stamp BEFORE INSERT OR UPDATE ON errkb.retractions FOR EACH ROW EXECUTE FUNCTION errkb.stamp();
DROP TRIGGER IF EXISTS stamp ON errkb.removed_members;
CREATE TRIGGER stamp BEFORE INSERT OR UPDATE ON errkb.removed_members FOR EACH ROW EXECUTE FUNCTION errkb.stamp();

-- One member's writes that are bounded go one at a time: each takes a
-- row lock on its member's row here, through errkb.one_writer(). Members
-- have no rights on this table, so none can lock another's row (an
-- advisory lock would not do: any login may take any advisory lock, and
-- hold it to make another member's every sync wait and fail).
CREATE TABLE IF NOT EXISTS errkb.member_writes (member text PRIMARY KEY);
REVOKE ALL ON errkb.member_writes FROM PUBLIC;
CREATE OR REPLACE FUNCTION errkb.one_writer() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO errkb.member_writes (member) VALUES (session_user) ON CONFLICT DO NOTHING;
  PERFORM 1 FROM errkb.member_writes WHERE member = session_user FOR UPDATE;
END $$;
REVOKE ALL ON FUNCTION errkb.one_writer() FROM PUBLIC;

-- At most 10,000 fixes from one member (a laptop keeps no more of one
-- member either): one login cannot fill the hub, or make every receiver
-- read millions of rows. Checked after each statement; a member's
-- transactions that write fixes go one at a time (a second waits for the
-- first to end, or for its lock timeout), in READ COMMITTED (as errkb
-- sync does), where the count sees what the first committed.
CREATE OR REPLACE FUNCTION errkb.bound_fixes() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'fixes are sent in READ COMMITTED transactions';
  END IF;
  PERFORM errkb.one_writer();
  IF (SELECT count(*) FROM errkb.fixes WHERE member = session_user) > 10000 THEN
    RAISE EXCEPTION 'more than 10000 fixes from %: errkb forget (or the hub''s owner) can remove old ones',
      session_user;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS bound ON errkb.fixes;
CREATE TRIGGER bound AFTER INSERT ON errkb.fixes FOR EACH STATEMENT EXECUTE FUNCTION errkb.bound_fixes();

-- A fix deleted from the hub by hand (by its member, or by the owner) is
-- withdrawn on the laptops too: the deletion leaves a retraction of that
-- member's copy, which they receive.
CREATE OR REPLACE FUNCTION errkb.withdraw_deleted() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO errkb.retractions (uid, member) VALUES (OLD.uid, OLD.member) ON CONFLICT DO NOTHING;
  RETURN OLD;
END $$;
DROP TRIGGER IF EXISTS withdraw_deleted ON errkb.fixes;
CREATE TRIGGER withdraw_deleted AFTER DELETE ON errkb.fixes FOR EACH ROW EXECUTE FUNCTION errkb.withdraw_deleted();

-- ---- Row-level security ----------------------------------------------------
-- (The schema's owner is not subject to it; members are.)
CREATE OR REPLACE FUNCTION errkb.may_write() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT NOT EXISTS (SELECT 1 FROM errkb.removed_members WHERE member = session_user)
$$;
CREATE OR REPLACE FUNCTION errkb.is_retracted(fix text, sender text) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM errkb.retractions WHERE uid = fix AND member IN ('', sender))
$$;

ALTER TABLE errkb.fixes ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS read ON errkb.fixes;
CREATE POLICY read ON errkb.fixes FOR SELECT USING (true);
DROP POLICY IF EXISTS add ON errkb.fixes;
CREATE POLICY add ON errkb.fixes FOR INSERT
  WITH CHECK (member = session_user AND errkb.may_write() AND NOT errkb.is_retracted(uid, member));
DROP POLICY IF EXISTS remove ON errkb.fixes;
CREATE POLICY remove ON errkb.fixes FOR DELETE USING (member = session_user OR errkb.is_admin());

ALTER TABLE errkb.counts ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS read ON errkb.counts;
CREATE POLICY read ON errkb.counts FOR SELECT USING (true);
DROP POLICY IF EXISTS add ON errkb.counts;
CREATE POLICY add ON errkb.counts FOR INSERT WITH CHECK (member = session_user AND errkb.may_write());
DROP POLICY IF EXISTS change ON errkb.counts;
CREATE POLICY change ON errkb.counts FOR UPDATE USING (member = session_user)
  WITH CHECK (member = session_user AND errkb.may_write());
DROP POLICY IF EXISTS remove ON errkb.counts;
CREATE POLICY remove ON errkb.counts FOR DELETE USING (member = session_user OR errkb.is_admin());

ALTER TABLE errkb.retractions ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS read ON errkb.retractions;
CREATE POLICY read ON errkb.retractions FOR SELECT USING (true);
DROP POLICY IF EXISTS add ON errkb.retractions;
CREATE POLICY add ON errkb.retractions FOR INSERT
  WITH CHECK (retracted_by = session_user AND errkb.may_write() AND (member = session_user OR errkb.is_admin()));

ALTER TABLE errkb.removed_members ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS read ON errkb.removed_members;
CREATE POLICY read ON errkb.removed_members FOR SELECT USING (true);
DROP POLICY IF EXISTS add ON errkb.removed_members;
CREATE POLICY add ON errkb.removed_members FOR INSERT WITH CHECK (errkb.is_admin());

ALTER TABLE errkb.replica_claims ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS read ON errkb.replica_claims;
CREATE POLICY read ON errkb.replica_claims FOR SELECT USING (true);

-- ---- The owner's commands ----------------------------------------------------
-- Remove a member and everything it sent; laptops drop it at their next
-- sync. Its login loses errkb_member where this login may revoke it.
-- (These two run with the owner's rights, past row-level security, once
-- they have checked that the caller is the owner or in errkb_admin.)
--   SELECT errkb.remove_member('mallory');
CREATE OR REPLACE FUNCTION errkb.remove_member(name text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  fixes bigint;
BEGIN
  IF NOT errkb.is_admin() THEN
    RAISE EXCEPTION 'only the hub''s owner (or a login in errkb_admin) can remove a member';
  END IF;
  INSERT INTO errkb.removed_members (member) VALUES (name)
  ON CONFLICT (member) DO UPDATE SET removed_at = now();
  DELETE FROM errkb.fixes WHERE member = name;
  GET DIAGNOSTICS fixes = ROW_COUNT;
  DELETE FROM errkb.counts WHERE member = name;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = name) THEN
    BEGIN
      EXECUTE format('REVOKE errkb_member FROM %I', name);
    EXCEPTION WHEN insufficient_privilege THEN
      RETURN format('removed %s (%s fixes); its login is still in errkb_member: REVOKE errkb_member FROM %I', name, fixes, name);
    END;
  END IF;
  RETURN format('removed %s (%s fixes)', name, fixes);
END $$;

-- Rows of schema 1 name the laptop (replica) that sent them, not a member:
-- nothing a member could say would prove which replica was its own (the ids
-- were readable by all). The owner, who knows the team, gives them to their
-- member (errkb hub status shows a laptop its replica id):
--   SELECT errkb.assign_replica('<replica id>', 'alice');
CREATE OR REPLACE FUNCTION errkb.assign_replica(r text, name text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  fixes bigint;
BEGIN
  IF NOT errkb.is_admin() THEN
    RAISE EXCEPTION 'only the hub''s owner (or a login in errkb_admin) can give a laptop''s rows to a member';
  END IF;
  INSERT INTO errkb.replica_claims (replica, member) VALUES (r, name)
  ON CONFLICT (replica) DO UPDATE SET member = excluded.member, claimed_at = now(), xid = pg_current_xact_id();
  DELETE FROM errkb.fixes AS l WHERE l.member = 'replica:' || r
    AND EXISTS (SELECT 1 FROM errkb.fixes AS n WHERE n.uid = l.uid AND n.member = name);
  UPDATE errkb.fixes SET member = name, xid = pg_current_xact_id() WHERE member = 'replica:' || r;
  GET DIAGNOSTICS fixes = ROW_COUNT;
  DELETE FROM errkb.counts AS l WHERE l.member = 'replica:' || r
    AND EXISTS (SELECT 1 FROM errkb.counts AS n WHERE n.uid = l.uid AND n.member = name AND n.replica = l.replica);
  UPDATE errkb.counts SET member = name WHERE member = 'replica:' || r;
  RETURN format('gave %s fixes of replica %s to %s', fixes, r, name);
END $$;
DROP FUNCTION IF EXISTS errkb.claim_replica(text);

-- What a member does to its own rows goes through these (the functions
-- check who calls them): a member has no UPDATE or DELETE on the tables,
-- so it cannot take a lock that would hold everyone's sync.
--
-- Its laptops' counts of fixes on the hub (running totals: each count kept
-- at the larger of old and new), from at most 20 laptops per member: a
-- member cannot fill the hub, or its teammates' laptops, with counts under
-- made-up laptop ids.
CREATE OR REPLACE FUNCTION errkb.send_counts(uids text[], r text, learned bigint[], sessions bigint[],
                                             advised bigint[], helped bigint[], failed bigint[]) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  written bigint;
BEGIN
  IF NOT errkb.may_write() THEN
    RAISE EXCEPTION 'the hub''s owner removed % from the team', session_user;
  END IF;
  -- (one member's calls one at a time: two at once could each see room)
  PERFORM errkb.one_writer();
  IF NOT EXISTS (SELECT 1 FROM errkb.counts WHERE member = session_user AND replica = r)
     AND (SELECT count(DISTINCT replica) FROM errkb.counts WHERE member = session_user) >= 20 THEN
    RAISE EXCEPTION 'counts from more than 20 laptops of %: the hub''s owner can remove old ones', session_user;
  END IF;
  INSERT INTO errkb.counts (uid, member, replica, learned, sessions, advised, helped, failed)
  SELECT u.uid, session_user, r, least(greatest(u.l, 0), 1000000), least(greatest(u.s, 0), 1000000),
         least(greatest(u.a, 0), 1000000), least(greatest(u.h, 0), 1000000), least(greatest(u.f, 0), 1000000)
  FROM unnest(uids, learned, sessions, advised, helped, failed) AS u(uid, l, s, a, h, f)
  WHERE octet_length(r) <= 64 AND EXISTS (SELECT 1 FROM errkb.fixes AS x WHERE x.uid = u.uid)
  ON CONFLICT (uid, member, replica) DO UPDATE SET
    learned = greatest(errkb.counts.learned, excluded.learned),
    sessions = greatest(errkb.counts.sessions, excluded.sessions),
    advised = greatest(errkb.counts.advised, excluded.advised),
    helped = greatest(errkb.counts.helped, excluded.helped),
    failed = greatest(errkb.counts.failed, excluded.failed)
  WHERE excluded.learned > errkb.counts.learned OR excluded.sessions > errkb.counts.sessions
     OR excluded.advised > errkb.counts.advised OR excluded.helped > errkb.counts.helped
     OR excluded.failed > errkb.counts.failed;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END $$;

-- A member withdraws its own copies of fixes (errkb forget): they leave the
-- hub, stay refused from it, and every laptop drops what it sent of them.
-- Only copies the member has on the hub: a retraction of anything else
-- would be a row every laptop reads, for nothing.
CREATE OR REPLACE FUNCTION errkb.withdraw(uids text[]) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  removed bigint;
BEGIN
  IF NOT errkb.may_write() THEN
    RAISE EXCEPTION 'the hub''s owner removed % from the team', session_user;
  END IF;
  PERFORM errkb.one_writer();
  INSERT INTO errkb.retractions (uid, member, retracted_by)
  SELECT u, session_user, session_user FROM unnest(uids) AS u
  WHERE EXISTS (SELECT 1 FROM errkb.fixes AS f WHERE f.uid = u AND f.member = session_user)
  ON CONFLICT DO NOTHING;
  -- (withdrawals are kept for good, and every laptop reads them: at most
  -- 10,000 per member, or withdrawing and sending again would be rows
  -- without end)
  IF (SELECT count(*) FROM errkb.retractions WHERE retracted_by = session_user AND member = session_user) > 10000 THEN
    RAISE EXCEPTION 'more than 10000 withdrawals from %: the hub''s owner can remove old ones', session_user;
  END IF;
  DELETE FROM errkb.counts WHERE uid = ANY(uids) AND member = session_user;
  DELETE FROM errkb.fixes WHERE uid = ANY(uids) AND member = session_user;
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed;
END $$;

-- ---- What members may touch --------------------------------------------------
-- Read everything; add fixes (as themselves: the stamp trigger and the
-- policies); the rest through the functions above. Nothing that could lock
-- a table against the others (LOCK TABLE beyond ROW EXCLUSIVE needs UPDATE,
-- DELETE or TRUNCATE).
GRANT USAGE ON SCHEMA errkb TO errkb_member, errkb_admin;
GRANT SELECT ON errkb.meta, errkb.fixes, errkb.counts, errkb.retractions, errkb.removed_members,
                errkb.replica_claims TO errkb_member, errkb_admin;
GRANT INSERT ON errkb.fixes TO errkb_member, errkb_admin;
REVOKE UPDATE, DELETE, TRUNCATE ON errkb.fixes, errkb.counts, errkb.retractions, errkb.removed_members,
                                  errkb.replica_claims, errkb.meta FROM errkb_member;
REVOKE INSERT ON errkb.counts, errkb.retractions, errkb.removed_members, errkb.replica_claims, errkb.meta
  FROM errkb_member;
GRANT EXECUTE ON FUNCTION errkb.one_writer() TO errkb_member, errkb_admin;
REVOKE ALL ON FUNCTION errkb.send_counts(text[], text, bigint[], bigint[], bigint[], bigint[], bigint[]),
                       errkb.withdraw(text[]), errkb.assign_replica(text, text), errkb.remove_member(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION errkb.send_counts(text[], text, bigint[], bigint[], bigint[], bigint[], bigint[]),
                          errkb.withdraw(text[]) TO errkb_member, errkb_admin;
GRANT EXECUTE ON FUNCTION errkb.assign_replica(text, text), errkb.remove_member(text) TO errkb_admin;
-- An errkb_admin login that is not the owner retracts fixes, and may
-- repair rows by hand, as the owner does.
GRANT INSERT, UPDATE, DELETE ON errkb.fixes, errkb.counts, errkb.retractions, errkb.removed_members,
                                errkb.replica_claims TO errkb_admin;

INSERT INTO errkb.meta (key, value) VALUES ('schema_version', '2')
ON CONFLICT (key) DO UPDATE SET value = excluded.value
WHERE errkb.meta.value::int < excluded.value::int;
