"""A member's attacks on receiving and on the hub's bounds, with nothing
but its own login (mallory), against a real PostgreSQL server and the
errkb binaries: locks another member would wait on, more open
transactions than a laptop used to keep, withdrawing and sending again,
savepoints and aborted transactions in an open one, other ways to write
past the bound on fixes."""
import threading
import time

import pytest

from test_hub import Server, SUPERUSER_PASSWORD, pg  # noqa: F401 (pg: fixture)
from test_hub_members import end_session, flood, laptop, make_team, psql_session, team  # noqa: F401 (team: fixture)
from conftest import runner


def hold_advisory_lock(team, key_sql):
    """Mallory takes a session-level advisory lock and keeps her session
    (idle, no transaction) open."""
    held = psql_session(team.pg, team.db, user="mallory")
    held.stdin.write(f"SELECT pg_advisory_lock({key_sql});\n")
    held.stdin.flush()
    deadline = time.monotonic() + 20
    while team.value("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted") == "0":
        assert time.monotonic() < deadline, "the lock was never taken"
        time.sleep(0.05)
    return held


def test_a_member_cannot_make_another_members_sync_wait_on_a_lock(team, tmp_path):
    """One member's bounded writes go one at a time, on a lock of its own
    that no other login can take: mallory holds every advisory lock errkb
    ever used, an open transaction that wrote as herself, and tries to
    lock the members' rows; A's sends of a fix and of counts still go
    through at once."""
    a, b = laptop(tmp_path, team, "a", "member"), laptop(tmp_path, team, "b", "bob")
    held = [hold_advisory_lock(team, f"hashtext('{key}')")
            for key in ("errkb.fixes member", "errkb.send_counts member", "errkb hub schema")]
    own = psql_session(team.pg, team.db, user="mallory")
    try:
        own.stdin.write("BEGIN;\nSELECT errkb.one_writer();\n")
        own.stdin.flush()
        tried = team.mallory("BEGIN; SELECT * FROM errkb.member_writes FOR UPDATE;")
        assert tried.returncode != 0 and "permission denied" in tried.stderr, tried.stderr
        a.learn_fix("sa1")
        started = time.monotonic()
        synced = a.run("sync", check=False)
        assert synced.returncode == 0 and "sent 1 fix," in synced.stdout, synced.stdout + synced.stderr
        a.fail("sa2")  # the fix advised: new counts to send
        synced = a.run("sync", check=False)
        assert synced.returncode == 0 and "sent 0 fixes, 1 count," in synced.stdout, synced.stdout + synced.stderr
        assert time.monotonic() - started < 10
        b.run("sync")
        assert "pip install pyyaml" in (b.fail("sb1") or "")
        # nor the owner's hub init (an upgrade) on its lock
        done = runner("hub", "init", team.url(), env={"PGPASSWORD": SUPERUSER_PASSWORD}, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        for h in held + [own]:
            h.kill()


@pytest.fixture
def pg_prepared():
    """A server that allows prepared transactions (max_prepared_transactions
    is 0 by default; a server used for other things may allow them)."""
    server = Server()
    server.stop()
    server.options += " -c max_prepared_transactions=1100"
    server.start()
    server.psql("CREATE DATABASE team", db="postgres")
    yield server
    server.destroy()


def test_a_thousand_prepared_transactions_and_a_flood_do_not_stall_a_sync(pg_prepared, tmp_path):
    """Mallory leaves 1,001 prepared transactions (each has its id, needs
    no connection, and stays until the owner ends it), then floods the
    hub with 30,000 rows; then A sends an honest fix. B's cursor keeps
    them all as open, and goes on past them: A's fix arrives."""
    team = make_team(pg_prepared)
    a, b = laptop(tmp_path, team, "a", "member"), laptop(tmp_path, team, "b", "bob")
    prepared = "".join(f"BEGIN; SELECT pg_current_xact_id(); PREPARE TRANSACTION 'mallory{i}';\n"
                       for i in range(1001))
    assert team.mallory(prepared).returncode == 0
    assert team.value("SELECT count(*) FROM pg_prepared_xacts") == "1001"
    flood(team, 2)
    a.learn_fix("sa1")
    assert "sent 1 fix," in a.run("sync").stdout
    outputs = []
    for _ in range(3):
        started = time.monotonic()
        synced = b.run("sync", check=False)
        outputs.append((round(time.monotonic() - started, 1), synced.returncode, synced.stdout.strip(),
                        b.rows("SELECT cursor FROM hub_state")[0][0][:60]))
        if b.rows("SELECT count(*) FROM fixes WHERE resolution LIKE '%pip install pyyaml%'") == [(1,)]:
            break
    print(outputs)
    assert b.rows("SELECT count(*) FROM fixes WHERE resolution LIKE '%pip install pyyaml%'") == [(1,)], outputs


def mallory_fix_sql(tag):
    return ("INSERT INTO errkb.fixes (uid, replica, project, error_key, signature, headline, resolution, fix_key) "
            f"VALUES (md5('{tag}'), 'm', 'github.com/acme/shop', 'Error: {tag}', 'Error: {tag}', 'Error: {tag}', "
            "'{\"resolvedBy\": \"x\", \"tool\": \"Bash\", \"command\": \"npm i " + tag + "\"}', 'k');\n")


def wait_for_xid(team, user="mallory"):
    deadline = time.monotonic() + 20
    while team.value(f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{user}' "
                     "AND backend_xid IS NOT NULL") != "1":
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_rows_written_in_savepoints_and_exception_blocks_of_an_open_transaction_arrive_once_it_commits(team, tmp_path):
    a, b = laptop(tmp_path, team, "a", "member"), laptop(tmp_path, team, "b", "bob")
    held = psql_session(team.pg, team.db, user="mallory")
    try:
        # the first write in a subtransaction (the top-level id assigned from there)
        held.stdin.write("BEGIN;\nSAVEPOINT s1;\n" + mallory_fix_sql("sub1") + "RELEASE SAVEPOINT s1;\n"
                         "SAVEPOINT s2;\n" + mallory_fix_sql("gone") + "ROLLBACK TO SAVEPOINT s2;\n"
                         "DO $$ BEGIN " + mallory_fix_sql("sub2").strip() +
                         " PERFORM 1/0; EXCEPTION WHEN division_by_zero THEN NULL; END $$;\n"
                         "DO $$ BEGIN BEGIN " + mallory_fix_sql("sub3").strip() +
                         " END; END $$;\n")
        held.stdin.flush()
        wait_for_xid(team)
        a.learn_fix("sa1")
        assert "sent 1 fix," in a.run("sync").stdout
        b.run("sync")
        assert "pip install pyyaml" in (b.fail("sb1") or "")
        a.learn_fix("sa2", error="Error: other", fix="npm i other", command="node x.js")
        a.run("sync")
        b.run("sync")
        assert end_session(held) == 0
    finally:
        if held.poll() is None:
            held.kill()
    b.run("sync")
    got = {r[0] for r in b.rows("SELECT resolution FROM fixes")}
    print(got)
    assert any("npm i sub1" in g for g in got) and any("npm i sub3" in g for g in got), got
    assert not any("npm i sub2" in g or "npm i gone" in g for g in got), got


def test_an_aborted_open_transaction_leaves_the_cursor(team, tmp_path):
    a, b = laptop(tmp_path, team, "a", "member"), laptop(tmp_path, team, "b", "bob")
    held = psql_session(team.pg, team.db, user="mallory")
    held.stdin.write("BEGIN;\n" + mallory_fix_sql("aborted"))
    held.stdin.flush()
    wait_for_xid(team)
    a.learn_fix("sa1")
    a.run("sync")
    b.run("sync")
    [(cursor,)] = b.rows("SELECT cursor FROM hub_state")
    assert ";" in cursor, cursor
    end_session(held, "ROLLBACK")
    b.run("sync")
    [(cursor,)] = b.rows("SELECT cursor FROM hub_state")
    assert ";" not in cursor, cursor
    assert "pip install pyyaml" in (b.fail("sb1") or "")


def test_withdrawing_and_sending_again_is_bounded(team, tmp_path):
    """Mallory sends 10,000 fixes, withdraws them (10,000 withdrawals, kept
    for good), sends 10,000 new ones, and so on: the withdrawals are
    bounded too, so the rows every laptop reads are."""
    insert = ("INSERT INTO errkb.fixes (uid, replica, project, error_key, signature, headline, resolution, fix_key) "
              "SELECT md5('{tag}' || i), 'm', 'github.com/acme/shop', 'Error: m', 'Error: m', 'Error: m' || i, "
              "'{{\"resolvedBy\": \"x\", \"tool\": \"Bash\"}}', 'k' FROM generate_series(1, 10000) AS i;\n")
    withdraw = "SELECT errkb.withdraw(ARRAY(SELECT md5('{tag}' || i) FROM generate_series(1, 10000) AS i));\n"
    for cycle in range(4):
        tag = f"c{cycle}"
        done = team.mallory(insert.format(tag=tag) + withdraw.format(tag=tag))
        if cycle == 0:
            assert done.returncode == 0, done.stderr
        elif cycle == 1:  # (the 10,000 new fixes stay; their withdrawal is refused)
            assert done.returncode != 0 and "more than 10000 withdrawals from mallory" in done.stderr, done.stderr
        else:
            assert done.returncode != 0 and "more than 10000 fixes from mallory" in done.stderr, done.stderr
    withdrawals = int(team.value("SELECT count(*) FROM errkb.retractions WHERE retracted_by = 'mallory'"))
    fixes = int(team.value("SELECT count(*) FROM errkb.fixes WHERE member = 'mallory'"))
    assert (withdrawals, fixes) == (10000, 10000)


def test_the_bound_on_fixes_holds_through_copy_merge_and_a_concurrent_transaction(team):
    row = ("md5('{t}' || i), 'm', 'github.com/acme/shop', 'E', 'E', 'E' || i, "
           "'{{\"resolvedBy\": \"x\", \"tool\": \"B\"}}'::jsonb, 'k'")
    names = ["uid", "replica", "project", "error_key", "signature", "headline", "resolution", "fix_key"]
    cols = "(" + ", ".join(names) + ")"
    assert team.mallory(f"INSERT INTO errkb.fixes {cols} SELECT {row.format(t='a')} "
                        "FROM generate_series(1, 9999) AS i;").returncode == 0
    copy = team.mallory(f"COPY errkb.fixes {cols} FROM STDIN;\n" + "".join(
        f"{'%032x' % (i + 1)}\tm\tgithub.com/acme/shop\tE\tE\tE\t{{\"resolvedBy\": \"x\", \"tool\": \"B\"}}\tk\n"
        for i in range(5)) + "\\.\n")
    assert copy.returncode != 0, copy.stdout
    merged = team.mallory(f"MERGE INTO errkb.fixes AS f USING (SELECT {row.format(t='m')} FROM generate_series(1, 5) AS i) "
                         f"AS s{cols} ON false WHEN NOT MATCHED THEN INSERT {cols} VALUES ("
                         + ", ".join("s." + n for n in names) + ");")
    assert merged.returncode != 0, merged.stdout
    # two transactions at once, each adding 1 to 9,999
    held = psql_session(team.pg, team.db, user="mallory")
    held.stdin.write(f"BEGIN;\nINSERT INTO errkb.fixes {cols} SELECT {row.format(t='x')} FROM generate_series(1, 1) AS i;\n")
    held.stdin.flush()
    wait_for_xid(team)
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("p", team.mallory(
        f"INSERT INTO errkb.fixes {cols} SELECT {row.format(t='y')} FROM generate_series(1, 1) AS i;")))
    t.start()
    time.sleep(2)
    end_session(held)
    t.join(30)
    assert team.value("SELECT count(*) FROM errkb.fixes WHERE member = 'mallory'") == "10000"
