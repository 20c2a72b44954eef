"""A team's hub on a real PostgreSQL server, started by the tests
(`initdb` and `pg_ctl` in a temporary folder, on 127.0.0.1; as an
unprivileged user when the tests run as root, since initdb refuses root).
Each replica is a HOME of its own with a knowledge base, driven through the
runner: its hooks learn and advise, `errkb hub`, `errkb sync` and `errkb
forget` share."""
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import DIST, RUNNER, connection, folder_for_others, runner, sqlite

NOBODY = 65534
PG_BIN = next((Path(p) for p in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
               if (Path(p) / "initdb").exists()), None) if Path("/usr/lib/postgresql").exists() else None
if PG_BIN is None and shutil.which("initdb"):
    PG_BIN = Path(shutil.which("initdb")).parent
SUPERUSER_PASSWORD = "owner-pw-for-tests"
MEMBER_PASSWORD = "member-pw-for-tests"
MISSING = "Traceback (most recent call last):\n  File \"app.py\", line 1\nModuleNotFoundError: No module named 'yaml'"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A PostgreSQL cluster of the tests' own."""

    def __init__(self, ssl=False):
        if PG_BIN is None:
            pytest.skip("PostgreSQL's server is not installed (make test-deps installs it)")
        self.root = folder_for_others("errkb-pg-")  # the server may run as nobody
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.port = free_port()
        self.as_user = []
        if os.geteuid() == 0:
            self.as_user = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
            os.chown(self.root, NOBODY, NOBODY)
        pwfile = self.root / "pw"
        pwfile.write_text(SUPERUSER_PASSWORD + "\n")
        if self.as_user:
            os.chown(pwfile, NOBODY, NOBODY)
        self.run_pg("initdb", "-D", str(self.data), "-U", "owner", "--auth-host=scram-sha-256",
                    "--auth-local=trust", f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C")
        # A small write-ahead log, recycled often: by default it may grow to
        # 1 GB before a checkpoint, and a run's disk may not have that.
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                   f"-c unix_socket_directories={self.root} -c fsync=off "
                   "-c wal_level=minimal -c max_wal_senders=0 -c max_wal_size=64MB -c min_wal_size=32MB")
        if ssl:
            self.make_certificates()
            options += " -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key"
        self.options = options
        self.start()

    def run_pg(self, tool, *args, check=True):
        return subprocess.run([*self.as_user, str(PG_BIN / tool), *args], capture_output=True, text=True,
                              check=check, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(self.root)},
                              cwd=self.root)

    def start(self):
        self.run_pg("pg_ctl", "-D", str(self.data), "-o", self.options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self):
        self.run_pg("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)

    def destroy(self):
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def make_certificates(self):
        """A CA of the tests' own and a server certificate for the name localhost."""
        def ssl(*args):
            subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=self.root)
        ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=errkb test CA")
        ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj",
            "/CN=localhost")
        (self.root / "san.ext").write_text("subjectAltName=DNS:localhost\n")
        ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "san.ext")
        for name in ("server.crt", "server.key"):
            target = self.data / name
            shutil.copy(self.root / name, target)
            target.chmod(0o600)
            if self.as_user:
                os.chown(target, NOBODY, NOBODY)

    def psql(self, sql, db="team", user="owner"):
        out = subprocess.run(["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                              str(self.port), "-U", user, "-d", db, "-f", "-"], input=sql, capture_output=True,
                             text=True, env={"PATH": os.environ["PATH"], "PGPASSWORD": SUPERUSER_PASSWORD})
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    def url(self, user="owner", db="team", query=""):
        return f"postgresql://{user}@127.0.0.1:{self.port}/{db}{query}"


@pytest.fixture(scope="module")
def pg():
    server = Server()
    server.psql("CREATE DATABASE team", db="postgres")
    yield server
    server.destroy()


def add_member(pg, db, login, password=MEMBER_PASSWORD):
    """A teammate's login, as errkb hub init says to make one."""
    pg.psql(f"DO $$ BEGIN CREATE ROLE {login} LOGIN PASSWORD '{password}' IN ROLE errkb_member; "
            "EXCEPTION WHEN duplicate_object THEN NULL; END $$", db=db)
    pg.psql(f"GRANT CONNECT ON DATABASE {db} TO errkb_member", db=db)


@pytest.fixture
def hub(pg):
    """A fresh hub: the schema made by errkb hub init, a member with a login."""
    name = f"hub{random.randrange(10**9)}"
    pg.psql(f"CREATE DATABASE {name}", db="postgres")
    out = runner("hub", "init", pg.url(db=name), env={"PGPASSWORD": SUPERUSER_PASSWORD}, check=True).stdout
    assert "CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE errkb_member;" in out
    add_member(pg, name, "member")
    yield {"pg": pg, "db": name, "url": pg.url(user="member", db=name)}
    drop_database(pg, name)


def drop_database(pg, name):
    """A test's own database, dropped when it ends: a module's tests share
    one server, and its disk."""
    pg.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", db="postgres")


class Replica:
    """A laptop: a HOME with a knowledge base and a project with a git remote."""

    def __init__(self, root, name, remote="git@github.com:acme/shop.git"):
        self.home = root / name
        self.project = self.home / "work" / "shop"
        self.project.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        if remote:
            subprocess.run(["git", "-C", str(self.project), "remote", "add", "origin", remote], check=True)
        self.env = {"HOME": str(self.home), "PGPASSWORD": MEMBER_PASSWORD, "ERRKB_LANGUAGE": "en"}
        self.calls = 0

    def run(self, *args, check=True, stdin=None, env=None):
        return runner(*args, stdin=stdin, env=self.env | (env or {}), check=check)

    def hook(self, event, session, tool, tool_input, error=None, agent=None):
        self.calls += 1
        body = {"session_id": session, "transcript_path": "/nowhere.jsonl", "cwd": str(self.project),
                "hook_event_name": event, "tool_name": tool, "tool_input": tool_input,
                "tool_use_id": f"toolu_{self.home.name}_{self.calls}"}
        if error is not None:
            body["error"] = error
        proc = self.run("hook", event, stdin=json.dumps(body))
        assert (proc.returncode, proc.stderr) == (0, "")
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None

    def learn_fix(self, session, error=MISSING, fix="pip install pyyaml", command="python3 app.py"):
        self.hook("PostToolUseFailure", session, "Bash", {"command": command}, error)
        self.hook("PostToolUse", session, "Bash", {"command": fix})
        self.hook("PostToolUse", session, "Bash", {"command": command})

    def fail(self, session, error=MISSING, command="python3 app.py"):
        return self.hook("PostToolUseFailure", session, "Bash", {"command": command}, error)

    @property
    def db(self):
        return self.home / ".reflexion" / "data" / "reflexion.db"

    def rows(self, sql):
        with connection(self.db) as conn:
            return conn.execute(sql).fetchall()

    def counts(self, fix_key_like="%pip install pyyaml%"):
        """A fix's counts as this laptop knows them: its own, and each
        teammate laptop's as received."""
        return self.rows("SELECT sum(c.learned), sum(c.advised), sum(c.helped), sum(c.failed) "
                         "FROM (SELECT fix_id, learned, advised, helped, failed FROM fix_counts "
                         "      UNION ALL SELECT fix_id, learned, advised, helped, failed FROM team_counts) AS c "
                         f"JOIN fixes f ON f.id = c.fix_id WHERE f.resolution LIKE '{fix_key_like}'")[0]


def login_url(hub, login):
    """The hub's URL for another teammate's login (made here)."""
    add_member(hub["pg"], hub["db"], login)
    return hub["url"].replace("member@", f"{login}@")


def a_fix_shared(hub, tmp_path):
    """Two teammates' laptops (logins member and bob) joined to the hub; A
    learned a fix and both synced."""
    a, b = Replica(tmp_path, "a"), Replica(tmp_path, "b")
    a.run("hub", "join", hub["url"])
    b.run("hub", "join", login_url(hub, "bob"))
    a.learn_fix("sa1")
    a.run("sync")
    b.run("sync")
    return a, b


def test_a_fix_learned_on_one_laptop_is_advised_on_another_as_the_teams(hub, tmp_path):
    a, b = Replica(tmp_path, "a"), Replica(tmp_path, "b", remote="https://github.com/acme/shop")
    for r in (a, b):
        out = r.run("hub", "join", hub["url"]).stdout
        assert "joined postgresql://member@127.0.0.1:" in out
    a.learn_fix("sa1")
    assert "sent 1 fix," in a.run("sync").stdout
    assert "received 1 fix," in b.run("sync").stdout
    told = b.fail("sb1")
    assert told.startswith("[Reflexion error KB] A teammate fixed the same error before:")
    assert "pip install pyyaml" in told
    # one project, whatever each laptop's remote URL looks like
    assert hub["pg"].psql("SELECT DISTINCT project FROM errkb.fixes", db=hub["db"]) == "github.com/acme/shop"


def test_what_reaches_the_hub_is_the_fix_and_nothing_personal(hub, tmp_path):
    a = Replica(tmp_path, "a")
    a.run("hub", "join", hub["url"])
    a.learn_fix("session-secret-id", error=MISSING + f"\n  at {a.project}/app.py token=ghp_{'A' * 36}")
    a.run("sync")
    dump = hub["pg"].psql("SELECT row_to_json(f)::text FROM errkb.fixes AS f", db=hub["db"])
    dump += hub["pg"].psql("SELECT row_to_json(c)::text FROM errkb.counts AS c", db=hub["db"])
    assert dump
    for private in ("session-secret-id", str(tmp_path), "ghp_AAAA", "/work/shop", "sessionId"):
        assert private not in dump, private


def test_counts_add_up_across_laptops_and_a_resend_counts_nothing_twice(hub, tmp_path):
    a, b = Replica(tmp_path, "a"), Replica(tmp_path, "b")
    for r in (a, b):
        r.run("hub", "join", hub["url"])
    a.learn_fix("sa1")
    a.learn_fix("sa2")  # learned twice on A
    a.run("sync")
    b.run("sync")
    b.fail("sb1")  # advised on B ...
    b.hook("PostToolUse", "sb1", "Bash", {"command": "pip install pyyaml"})
    b.hook("PostToolUse", "sb1", "Bash", {"command": "python3 app.py"})  # ... and it helped
    b.run("sync")
    a.run("sync")
    learned_a, advised_a, helped_a, _ = a.counts()
    assert (learned_a, advised_a, helped_a) == b.counts()[:3]
    assert learned_a >= 2 and advised_a >= 1 and helped_a >= 1
    hub_sum = hub["pg"].psql("SELECT sum(learned), sum(advised), sum(helped) FROM errkb.counts", db=hub["db"])
    # a resend (a sync whose local marks were lost, as when killed after the hub committed) adds nothing
    with connection(a.db) as conn:
        conn.execute("DELETE FROM hub_sent")
    with connection(b.db) as conn:
        conn.execute("DELETE FROM hub_sent")
    a.run("sync")
    b.run("sync")
    assert hub["pg"].psql("SELECT sum(learned), sum(advised), sum(helped) FROM errkb.counts", db=hub["db"]) == hub_sum
    assert a.counts() == b.counts()


def test_a_sync_killed_mid_way_then_run_again_counts_each_thing_once(hub, tmp_path):
    a, b = Replica(tmp_path, "a"), Replica(tmp_path, "b")
    for r in (a, b):
        r.run("hub", "join", hub["url"])
    # many fixes, so that a kill lands inside a sync (learned through
    # kb_learn, as the hooks learn)
    sqlite(a.db, "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999) "
                 "INSERT INTO kb_learn (ts, error_raw, resolution, project, session_id) "
                 "SELECT '2026-01-01T00:00:00Z', 'Error: module m' || i || ' not found', "
                 "json_object('resolvedBy', 'success_after_error', 'tool', 'Bash', 'command', 'npm install m' || i), "
                 "'~/work/shop', 's' || i FROM n")
    kills = 0
    for delay in (0.05, 0.15, 0.3, 0.6):
        proc = subprocess.Popen([str(RUNNER), "sync"], env={**os.environ, **a.env}, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    a.run("sync")
    b.run("sync")
    on_hub = hub["pg"].psql("SELECT count(*), sum(learned) FROM errkb.fixes JOIN errkb.counts USING (uid)",
                            db=hub["db"])
    assert on_hub == "3000|3000"
    assert b.rows("SELECT count(*), sum(c.learned) FROM fixes f JOIN team_counts c ON c.fix_id = f.id "
                  "WHERE f.origin = 'team'") == [(3000, 3000)]
    assert kills >= 1


def test_five_laptops_syncing_at_once_lose_nothing(hub, tmp_path):
    replicas = [Replica(tmp_path, f"r{i}") for i in range(5)]
    for r in replicas:
        r.run("hub", "join", hub["url"])
    rounds = 4
    errors = []

    def laptop(i, r):
        try:
            for n in range(rounds):
                r.learn_fix(f"s{i}-{n}", error=f"Error: Cannot find module 'pkg{i}x{n}'", fix=f"npm install pkg{i}x{n}",
                            command="node index.js")
                r.run("sync")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=laptop, args=(i, r)) for i, r in enumerate(replicas)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for r in replicas:  # a last round, once everyone is done
        r.run("sync")
    expected = 5 * rounds
    assert hub["pg"].psql("SELECT count(*) FROM errkb.fixes", db=hub["db"]) == str(expected)
    for r in replicas:
        [(fixes, learned)] = r.rows("SELECT count(DISTINCT f.uid), sum(c.learned) FROM fixes f "
                                    "JOIN (SELECT fix_id, learned FROM fix_counts UNION ALL "
                                    "      SELECT fix_id, learned FROM team_counts) AS c ON c.fix_id = f.id "
                                    "WHERE f.resolution LIKE '%npm install pkg%'")
        assert (fixes, learned) == (expected, expected), r.home.name


def test_a_row_committed_late_by_a_slow_sender_is_not_skipped(hub, tmp_path):
    """Transaction ids are taken before commit: a sender that started first
    and commits last must still reach a receiver that synced in between.
    (The slow sender is another member: one member's sends of fixes go one
    at a time, on the hub.)"""
    pg, a, b = hub["pg"], Replica(tmp_path, "a"), Replica(tmp_path, "b")
    for r in (a, b):
        r.run("hub", "join", hub["url"])
    add_member(pg, hub["db"], "slowpoke")
    slow = subprocess.Popen(
        ["psql", "-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(pg.port), "-U", "slowpoke", "-d", hub["db"]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"PATH": os.environ["PATH"], "PGPASSWORD": MEMBER_PASSWORD})
    slow.stdin.write("BEGIN;\nINSERT INTO errkb.fixes (uid, replica, project, error_key, signature, headline, "
                     "resolution, fix_key) VALUES ('" + "a" * 32 + "', 'slow-replica', 'github.com/acme/shop', "
                     "'Error: slow <STR>', 'Error: slow <STR>', 'Error: slow ''x''', '{\"resolvedBy\": "
                     "\"success_after_error\", \"tool\": \"Bash\", \"command\": \"make slow\"}', 'k');\n")
    slow.stdin.flush()
    time.sleep(1)  # its transaction has its id now, and stays open
    a.learn_fix("sa1")
    a.run("sync")  # a later transaction commits first
    b.run("sync")  # the receiver syncs while the slow one is open
    # A's row, committed before B synced, has arrived; the cursor keeps
    # the open transaction as one to read again, so that its row is read
    # by a later sync
    slow_xid = int(pg.psql("SELECT min(backend_xid::text::bigint) FROM pg_stat_activity "
                           "WHERE backend_xid IS NOT NULL", db=hub["db"]))
    [(cursor,)] = b.rows("SELECT cursor FROM hub_state")
    places = [int(place.split()[0]) for place in cursor.split(";")]
    assert slow_xid in places[1:] or places[0] <= slow_xid, cursor
    assert b.rows("SELECT count(*) FROM fixes WHERE origin = 'team'") == [(1,)]
    slow.stdin.write("COMMIT;\n")
    slow.stdin.close()
    assert slow.wait(timeout=30) == 0
    b.run("sync")
    assert b.rows("SELECT count(*) FROM fixes WHERE origin = 'team'") == [(2,)]


def test_hub_down_hooks_unaffected_and_the_backlog_drains_later(hub, tmp_path):
    pg, a, b = hub["pg"], Replica(tmp_path, "a"), Replica(tmp_path, "b")
    for r in (a, b):
        r.run("hub", "join", hub["url"])
    pg.stop()
    try:
        started = time.monotonic()
        a.learn_fix("sa1")  # hooks never touch the network
        assert time.monotonic() - started < 10
        failed = a.run("sync", check=False)
        assert failed.returncode != 0 and "cannot connect to postgresql://member@127.0.0.1:" in failed.stderr
        assert "tried again later" in failed.stderr
        [(failures, next_try)] = a.rows("SELECT failures, next_try FROM hub_state")
        assert failures == 1 and next_try
        # the background job waits for its turn
        assert a.run("sync", "--if-due").stdout == ""
        status = a.run("hub", "status", check=False)
        assert status.returncode == 1 and "unreachable" in status.stdout and "waiting    1 fix," in status.stdout
        assert "FAIL hub" in a.run("doctor", check=False).stdout
    finally:
        pg.start()
    assert "sent 1 fix," in a.run("sync").stdout
    b.run("sync")
    assert "A teammate fixed the same error before" in b.fail("sb1")


def test_hostile_rows_on_the_hub_are_redacted_and_bounded_on_receipt(hub, tmp_path):
    pg, b = hub["pg"], Replica(tmp_path, "b")
    b.run("hub", "join", hub["url"])
    # (the hub refuses rows past its limits; a hub of schema 1 held them,
    # and its owner may drop the limits: receivers check every row anyway)
    pg.psql("ALTER TABLE errkb.fixes DROP CONSTRAINT fixes_size; ALTER TABLE errkb.counts DROP CONSTRAINT counts_size",
            db=hub["db"])
    token = "ghp_" + "B" * 36
    rows = [
        ("b" * 32, f"Error: bad token {token}", {"command": f"curl -H 'Authorization: token {token}' x"}),
        ("c" * 32, "Error: " + "x" * 1_000_000, {"command": "make"}),  # a megabyte headline
        ("d" * 32, "Error: '); DROP TABLE fixes; --", {"command": "'); DROP TABLE error_kb; --"}),
        ("e" * 32, "Error: huge", {"command": "y" * 100_000}),  # an oversized fix
    ]
    for uid, headline, fix in rows:
        resolution = json.dumps({"resolvedBy": "success_after_error", "tool": "Bash", **fix}).replace("'", "''")
        pg.psql("INSERT INTO errkb.fixes (uid, replica, project, error_key, signature, headline, resolution, fix_key) "
                f"VALUES ('{uid}', 'evil', 'github.com/acme/shop', '{headline[:200].replace(chr(39), chr(39) * 2)}', "
                f"'sig', '{headline.replace(chr(39), chr(39) * 2)}', '{resolution}', 'k')", db=hub["db"])
    pg.psql("INSERT INTO errkb.counts (uid, replica, learned) VALUES ('" + "b" * 32 + "', 'evil', 999999999999)",
            db=hub["db"])
    out = b.run("sync").stdout
    assert "received 2 fixes" in out and "2 received rows refused" in out  # the megabyte and the oversized
    stored = json.dumps(b.rows("SELECT error_headline, resolution FROM fixes"))
    assert token not in stored and "ghp_" not in stored
    assert max(len(h) for (h,) in b.rows("SELECT error_headline FROM fixes")) <= 500
    # (a received fix is known here by its content; team_fixes keeps the sender's uid)
    assert b.rows("SELECT count(*) FROM team_fixes WHERE hub_uid IN ('" + "c" * 32 + "', '" + "e" * 32 + "')") == [(0,)]
    assert b.rows("SELECT count(*) FROM team_fixes WHERE hub_uid = '" + "d" * 32 + "'") == [(1,)]  # stored as text
    assert b.rows("SELECT max(learned) FROM team_counts") == [(1_000_000,)]  # bounded


def test_forget_withdraws_ones_own_copy_and_the_owners_retraction_removes_a_fix_for_everyone(hub, tmp_path):
    a, b = a_fix_shared(hub, tmp_path)
    [(fix_id,)] = b.rows("SELECT id FROM fixes WHERE origin = 'team'")
    out = b.run("forget", str(fix_id)).stdout
    assert "forgot fix" in out and "the team's hub no longer has it from you" in out
    assert "pip install pyyaml" not in (b.fail("sb1") or "")
    b.run("sync")
    assert b.rows("SELECT count(*) FROM fixes") == [(0,)]  # not received again
    # a member's forget is its own: A's fix stays, on A and on the hub
    a.run("sync")
    assert a.rows("SELECT count(*) FROM fixes") == [(1,)]
    assert "pip install pyyaml" in a.fail("sa9")
    assert hub["pg"].psql("SELECT count(*) FROM errkb.fixes", db=hub["db"]) == "1"
    # the hub's owner retracts it for everyone
    [(a_fix,)] = a.rows("SELECT id FROM fixes")
    out = a.run("hub", "retract", str(a_fix), "--url", hub["pg"].url(db=hub["db"]),
                env={"PGPASSWORD": SUPERUSER_PASSWORD}).stdout
    assert "retracted" in out and "for everyone" in out
    assert hub["pg"].psql("SELECT count(*) FROM errkb.fixes", db=hub["db"]) == "0"
    a.run("sync")
    assert a.rows("SELECT count(*) FROM fixes") == [(0,)]
    assert "pip install pyyaml" not in (a.fail("sa10") or "")
    a.learn_fix("sa11")  # learned again: still retracted, here and for the team
    assert "pip install pyyaml" not in (a.fail("sa12") or "")
    a.run("sync")
    assert hub["pg"].psql("SELECT count(*) FROM errkb.fixes", db=hub["db"]) == "0"
    # a member cannot retract a fix for everyone
    denied = b.run("hub", "retract", "a" * 32, "--url", hub["url"], check=False)
    assert denied.returncode != 0 and "only the hub's owner" in denied.stderr


def test_a_knowledge_base_that_joined_no_hub_keeps_none_of_the_hubs_tables(tmp_path):
    """Every process reads the whole schema: a database that never joined a
    hub has none of the hub's own tables, and errkb forget, which works
    without a hub (errkb-hub makes them to run its statements), leaves
    none behind, whether it forgot a fix or found none."""
    env = {"HOME": str(tmp_path)}
    runner("record", "--error", "ModuleNotFoundError: No module named 'requests'", "--resolution",
           "pip install requests", env=env, check=True)
    db = tmp_path / ".reflexion" / "data" / "reflexion.db"
    hub_only = ("hub_state", "hub_sent", "team_fixes", "team_counts", "hub_withdrawn", "hub_removed_members",
                "hub_refused")

    def tables():
        with connection(db) as conn:
            return {name for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    assert not tables() & set(hub_only) and {"team_standing", "retracted_fixes"} <= tables()
    assert runner("forget", "nosuch", env=env).returncode != 0
    assert not tables() & set(hub_only)
    with connection(db) as conn:
        [(fix_id,)] = conn.execute("SELECT id FROM fixes").fetchall()
    assert "forgot fix" in runner("forget", str(fix_id), env=env, check=True).stdout
    assert not tables() & set(hub_only)
    with connection(db) as conn:
        assert conn.execute("SELECT count(*) FROM fixes").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM retracted_fixes").fetchone() == (1,)


def test_a_fix_that_fails_more_than_it_helps_is_no_longer_advised_here_or_by_the_team(hub, tmp_path):
    a, b = a_fix_shared(hub, tmp_path)
    assert "pip install pyyaml" in b.fail("sb1")  # the team's fix, trusted so far
    # on A, twice: advised, and the same error comes straight back
    for session in ("sa2", "sa3"):
        assert "pip install pyyaml" in a.fail(session)
        a.fail(session)
    learned, _, helped, failed = a.counts()
    assert (learned, helped, failed) == (1, 0, 2)
    assert "pip install pyyaml" not in (a.fail("sa4") or "")  # failed 2 > worked 1
    a.run("sync")
    b.run("sync")
    assert b.counts()[3] == 2
    assert "pip install pyyaml" not in (b.fail("sb2") or "")


def test_only_the_projects_the_config_shares_reach_the_hub(hub, tmp_path):
    a, c = Replica(tmp_path, "a"), Replica(tmp_path, "c", remote=None)  # c's folder has no remote
    for r in (a, c):
        r.run("hub", "join", hub["url"])
    config = a.home / ".reflexion" / "config.json"
    settings = json.loads(config.read_text())
    settings["hub"]["exclude"] = ["git@github.com:acme/shop.git"]
    config.write_text(json.dumps(settings))
    a.learn_fix("sa1")
    c.learn_fix("sc1")
    for r in (a, c):
        assert "sent 0 fixes" in r.run("sync").stdout
    assert hub["pg"].psql("SELECT count(*) FROM errkb.fixes", db=hub["db"]) == "0"
    del settings["hub"]["exclude"]
    settings["hub"]["projects"] = ["github.com/acme/shop"]
    config.write_text(json.dumps(settings))
    assert "sent 1 fix," in a.run("sync").stdout
    assert "sent 0 fixes" in c.run("sync").stdout
    assert hub["pg"].psql("SELECT count(*) FROM errkb.fixes", db=hub["db"]) == "1"


def test_init_again_changes_nothing_status_and_leave(hub, tmp_path):
    again = runner("hub", "init", hub["pg"].url(db=hub["db"]), env={"PGPASSWORD": SUPERUSER_PASSWORD}, check=True)
    assert "is at schema 2 (was 2" in again.stdout
    a, b = a_fix_shared(hub, tmp_path)
    status = a.run("hub", "status").stdout
    assert "(reachable, schema 2, as member)" in status and "last sync  20" in status
    assert "waiting    0 fixes" in status and "refused    none" in status
    assert "left postgresql://bob@127.0.0.1:" in b.run("hub", "leave").stdout
    assert "not joined to a hub" in b.run("sync", check=False).stderr
    assert b.run("sync", "--if-due").returncode == 0  # the background job: nothing to do
    assert "pip install pyyaml" in b.fail("sb1")  # what was received stays


def test_a_hub_newer_than_this_errkb_gets_a_clear_message(hub, tmp_path):
    a = Replica(tmp_path, "a")
    a.run("hub", "join", hub["url"])
    hub["pg"].psql("UPDATE errkb.meta SET value = '3' WHERE key = 'schema_version'", db=hub["db"])
    failed = a.run("sync", check=False)
    assert failed.returncode != 0
    assert "has schema 3, newer than this errkb knows (2): update errkb on this machine" in failed.stderr
    init = runner("hub", "init", hub["pg"].url(db=hub["db"]), env={"PGPASSWORD": SUPERUSER_PASSWORD})
    assert init.returncode != 0 and "nothing was changed" in init.stderr


def test_passwords_are_used_never_kept(hub, tmp_path):
    a = Replica(tmp_path, "a")
    url = hub["url"].replace("member@", f"member:{MEMBER_PASSWORD}@")
    out = a.run("hub", "join", url, env={"PGPASSWORD": ""}).stdout
    assert "the password in the URL was used for this command only" in out
    assert f"127.0.0.1:{hub['pg'].port}:{hub['db']}:member:<password>" in out
    config = (a.home / ".reflexion" / "config.json").read_text()
    assert MEMBER_PASSWORD not in config and json.loads(config)["hub"]["url"] == hub["url"]
    # without PGPASSWORD the next sync says where to put it
    failed = a.run("sync", check=False, env={"PGPASSWORD": ""})
    assert "errkb found no password" in failed.stderr and MEMBER_PASSWORD not in failed.stderr
    # a password file, as libpq reads it
    pgpass = a.home / ".pgpass"
    pgpass.write_text(f"127.0.0.1:{hub['pg'].port}:*:member:{MEMBER_PASSWORD}\n")
    pgpass.chmod(0o600)
    assert a.run("sync", env={"PGPASSWORD": ""}).returncode == 0
    logs = "".join(p.read_text() for p in a.home.rglob("*.log"))
    assert MEMBER_PASSWORD not in logs


def test_a_hub_that_accepts_and_never_answers_fails_in_seconds(tmp_path):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(5)
    port = silent.getsockname()[1]
    a = Replica(tmp_path, "a")
    started = time.monotonic()
    proc = a.run("hub", "join", f"postgresql://member@127.0.0.1:{port}/team?connect_timeout=2", check=False)
    silent.close()
    assert proc.returncode != 0 and "did not answer within 2 s" in proc.stderr
    assert time.monotonic() - started < 15


@pytest.fixture(scope="module")
def tls_pg():
    server = Server(ssl=True)
    server.psql("CREATE DATABASE team", db="postgres")
    yield server
    server.destroy()


def test_tls_as_libpq_means_it(tls_pg, pg, tmp_path):
    ca = tls_pg.root / "ca.crt"
    a = Replica(tmp_path, "a")
    env = {"PGPASSWORD": SUPERUSER_PASSWORD}
    by_name = tls_pg.url(query=f"?sslmode=verify-full&sslrootcert={ca}").replace("127.0.0.1", "localhost")
    ok = a.run("hub", "init", by_name, env=env, check=False)
    assert ok.returncode == 0, ok.stderr
    # the certificate names localhost: by its address, verify-full refuses, verify-ca (the chain only) accepts
    by_address = tls_pg.url(query=f"?sslmode=verify-full&sslrootcert={ca}")
    wrong_name = a.run("hub", "init", by_address, env=env, check=False)
    assert wrong_name.returncode != 0 and "certificate" in wrong_name.stderr.lower(), wrong_name.stderr
    assert a.run("hub", "init", by_address.replace("verify-full", "verify-ca"), env=env, check=False).returncode == 0
    # a certificate of another authority fails verify-ca
    other_ca = tmp_path / "other-ca.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(tmp_path / "k"),
                    "-out", str(other_ca), "-days", "2", "-subj", "/CN=someone else"], check=True, capture_output=True)
    impostor = a.run("hub", "init", by_name.replace(str(ca), str(other_ca)), env=env, check=False)
    assert impostor.returncode != 0 and "certificate" in impostor.stderr.lower()
    # verify-full without the CA: refused before connecting, with what to do
    no_ca = a.run("hub", "init", tls_pg.url(query="?sslmode=verify-full"), env=env, check=False)
    assert no_ca.returncode != 0 and "~/.postgresql/root.crt" in no_ca.stderr
    # require: encrypted (unverified without a root file)
    assert a.run("hub", "init", tls_pg.url(query="?sslmode=require"), env=env, check=False).returncode == 0
    # a server without TLS is an error when TLS is required, never a fallback
    plain = a.run("hub", "init", pg.url(db="team", query="?sslmode=require"), env=env, check=False)
    assert plain.returncode != 0 and "cannot connect" in plain.stderr


def test_the_hooks_program_has_no_network_code(tmp_path):
    """errkb (every hook's program) starts errkb-hub, beside it, for the
    hub's commands and the model download; the PostgreSQL client, the HTTP
    client and TLS are in errkb-hub alone, so a hook's start-up is what it
    is without them."""
    runner, hub = RUNNER.read_bytes(), (DIST / "errkb-hub").read_bytes()
    for crate in (b"tokio-postgres", b"ureq", b"rustls"):
        assert crate not in runner and crate in hub, crate
    alone = tmp_path / "bin"
    alone.mkdir()
    shutil.copy2(RUNNER, alone / "errkb")
    env = {**os.environ, "HOME": str(tmp_path)}
    for command in (["sync"], ["model", "download"]):
        missing = subprocess.run([str(alone / "errkb"), *command], capture_output=True, text=True, env=env)
        assert missing.returncode == 2 and "errkb-hub is missing" in missing.stderr
    # without a hub joined, the end-of-session job needs no errkb-hub
    quiet = subprocess.run([str(alone / "errkb"), "after-session"], capture_output=True, text=True, env=env)
    assert "errkb-hub" not in quiet.stderr
