"""errkb migrate: a knowledge base keyed by the original JavaScript code
(quotes first, any slash to the next space as a path) gets today's keys;
rows that now collide merge without losing counts."""
import json

import pytest

from conftest import RECORD_VECTOR_MODEL, SCHEMA_VERSION, connection, insert_kb, runner, sqlite


@pytest.mark.model
def test_old_keys_are_recomputed_and_collisions_merged(kb):
    insert_kb(kb, [
        # Old-order keys, as the JavaScript code wrote them.
        {"error_normalized": "Cannot find module '<PATH>'", "error_raw": "Cannot find module '/a/b.ts'",
         "resolution": '{"resolvedBy":"success_after_error","tool":"Bash"}', "use_count": 3,
         "ts": "2026-01-01T00:00:00.000Z", "last_used": "2026-01-05T00:00:00.000Z"},
        {"error_normalized": "Cannot find module <STR>", "error_raw": "Cannot find module 'lodash'",
         "resolution": '{"resolvedBy":"success_after_error","tool":"Edit"}', "use_count": 2,
         "ts": "2026-02-01T00:00:00.000Z", "last_used": "2026-01-02T00:00:00.000Z"},
        {"error_normalized": "Error at line <N> in <PATH> unexpected token",
         "error_raw": "Error at line 42 in /src/app.js: unexpected token", "resolution": "fix it", "use_count": 1},
        {"error_normalized": "already right", "error_raw": None, "resolution": "x", "use_count": 5},
    ])
    with connection(kb) as conn:
        conn.execute("INSERT INTO learned_errors (event_id, error_kb_id, ts) VALUES (10, 1, 't')")
        conn.execute("INSERT INTO error_kb_files VALUES ('b.ts', 1)")
    sqlite(kb, "INSERT INTO vec_error_kb SELECT id, embed(error_normalized) FROM error_kb", RECORD_VECTOR_MODEL)

    out = runner("--db", str(kb), "migrate", check=True).stdout
    assert out == "re-keyed 2 entries, merged 1; run errkb embed for their vectors\n"
    with connection(kb) as conn:
        rows = conn.execute("SELECT id, error_normalized, use_count, last_used, CASE WHEN json_valid(resolution) THEN json_extract(resolution, '$.tool') END "
                            "FROM error_kb ORDER BY id").fetchall()
        assert rows == [
            (2, "Cannot find module <STR>", 5, "2026-01-05T00:00:00.000Z", "Edit"),  # newest fix, summed count
            (3, "Error at line <N> in <PATH>: unexpected token", 1, None, None),
            (4, "already right", 5, None, None),
        ]
        assert conn.execute("SELECT error_kb_id FROM learned_errors").fetchall() == [(2,)]
        assert conn.execute("SELECT file_name, error_kb_id FROM error_kb_files").fetchall() == [("b.ts", 2)]
        # Vectors of changed rows are gone (to be re-embedded); the untouched row keeps its own.
        assert [r for (r,) in conn.execute("SELECT rowid FROM vec_error_kb_rowids ORDER BY rowid")] == [2, 4]
    assert runner("--db", str(kb), "migrate", check=True).stdout.startswith("re-keyed 0 entries, merged 0")
    assert runner("--db", str(kb), "embed", check=True).stdout == "embedded 1, skipped 0\n"


JS_SCHEMA = """
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, v INTEGER DEFAULT 1, type TEXT NOT NULL, ts TEXT NOT NULL,
  session_id TEXT NOT NULL, project TEXT, project_path TEXT, data JSON NOT NULL);
CREATE INDEX idx_events_session ON events(session_id, ts);
CREATE TABLE error_kb (id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, error_normalized TEXT NOT NULL UNIQUE,
  error_raw TEXT, resolution TEXT, resolved_by TEXT, tool_sequence TEXT, use_count INTEGER DEFAULT 0, last_used TEXT);
CREATE UNIQUE INDEX idx_error_kb_error ON error_kb(error_normalized);
CREATE VIRTUAL TABLE vec_error_kb USING vec0(error_kb_id INTEGER PRIMARY KEY, embedding float[384]);
CREATE TABLE analysis_cache (id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, project TEXT, days INTEGER,
  input_hash TEXT, analysis JSON NOT NULL);
INSERT INTO error_kb (ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count)
VALUES ('2026-01-01T00:00:00.000Z', 'ENOENT: no such file or directory, open <STR>', 'ENOENT: no such file or directory, open ''a.json''',
  '{"resolvedBy":"success_after_error","tool":"Write","toolSequence":["Write"],"sessionId":"js","errorRaw":"x"}', 'Write', '["Write"]', 1);
INSERT INTO events (type, ts, session_id, project, project_path, data)
VALUES ('tool_error', '2026-01-01T00:00:00.000Z', 'js', 'app', '/work/app', '{"tool":"Read","error":"x","errorRaw":"x"}');
"""


def test_a_database_of_the_javascript_system_works_as_is(tmp_path):
    home = tmp_path / "home"
    db = home / ".reflexion" / "data" / "reflexion.db"
    db.parent.mkdir(parents=True)
    sqlite(db, JS_SCHEMA)  # made as the original system makes it (sqlite-vec for vec0)
    payload = {"session_id": "new", "cwd": "/work/app", "tool_name": "Read", "tool_input": {"file_path": "b.json"},
               "error": "ENOENT: no such file or directory, open 'b.json'"}
    proc = runner("hook", "PostToolUseFailure", stdin=json.dumps(payload), env={"HOME": str(home)})
    assert "- 해결 방법: success_after_error: Write" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    with connection(db) as conn:
        # its event, ours, and the advice given
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (3,)
        assert conn.execute("SELECT use_count FROM error_kb").fetchone() == (2,)
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)  # upgraded in place, tables unchanged
        # The upgrade gave the row its signature and its fix a counted row
        # (the advice counted on both).
        assert conn.execute("SELECT signature FROM error_kb_signatures").fetchall() == [
            ("ENOENT: no such file or directory, open <STR>",)]
        assert conn.execute("SELECT f.error_headline, c.learned, c.advised, json_extract(f.resolution, '$.tool') "
                            "FROM fixes AS f JOIN fix_counts AS c ON c.fix_id = f.id").fetchall() == [
            ("ENOENT: no such file or directory, open 'a.json'", 1, 1, "Write")]
        columns = [r[1] for r in conn.execute("PRAGMA table_info(error_kb)")]
        assert columns == ["id", "ts", "error_normalized", "error_raw", "resolution", "resolved_by",
                           "tool_sequence", "use_count", "last_used"]


def test_a_version_8_database_loses_what_every_hook_paid_for(tmp_path):
    """v9: events by type, a project's events of every type and events by
    tool call id cost every hook a page write; the upgrade drops them, keeps
    the data and indexes a project's errors instead. v10: kb_learn leaves
    the file (every connection parsed its trigger); learning still works.
    v11: so do the history views; they still answer."""
    home = tmp_path / "home"
    db = home / ".reflexion" / "data" / "reflexion.db"
    runner("init", env={"HOME": str(home)}, check=True)
    with connection(db) as conn:
        conn.executescript("""
            DROP INDEX idx_events_project_errors;
            CREATE INDEX idx_events_project_type ON events(project_path, type, ts);
            CREATE INDEX idx_events_type ON events(type, ts);
            CREATE INDEX idx_events_tool_use ON events(json_extract(data, '$.toolUseId'))
              WHERE json_extract(data, '$.toolUseId') IS NOT NULL;
            INSERT INTO events (type, ts, session_id, project, project_path, data)
            VALUES ('tool_error', '2026-01-01T00:00:00.000Z', 's', 'app', '/work/app',
                    '{"tool":"Bash","error":"make: *** No rule to make target <STR>.","toolUseId":"toolu_1"}');
            CREATE VIEW kb_learn (ts, error_raw, resolution) AS SELECT NULL, NULL, NULL;
            CREATE VIEW kb_frequent_errors AS SELECT 'old' AS error;
            CREATE VIEW kb_unresolved_errors AS SELECT error FROM kb_frequent_errors;
            CREATE VIEW kb_reused_fixes AS SELECT 1 AS id;
            CREATE VIEW kb_advice_hit_rate AS SELECT 1 AS day;
            PRAGMA user_version = 8;
        """)
    payload = {"session_id": "new", "cwd": "/work/app", "agent_type": "executor"}
    proc = runner("hook", "SubagentStart", stdin=json.dumps(payload), env={"HOME": str(home)})
    assert "make: *** No rule to make target <STR>." in proc.stdout  # the project's error, through the new index
    with connection(db) as conn:
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events'")}
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert indexes == {"idx_events_session", "idx_events_session_errors", "idx_events_session_advice",
                       "idx_events_project_errors"}
    with connection(db) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'kb_learn%'").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM sqlite_schema WHERE type = 'view'").fetchone() == (0,)
    assert sqlite(db, "SELECT error, times FROM kb_frequent_errors").stdout == "make: *** No rule to make target <STR>.|1\n"
    runner("--db", str(db), "record", "--error", "make: *** No rule to make target 'x'.",
           "--resolution", "add the target", check=True)
    with connection(db) as conn:
        assert conn.execute("SELECT count(*) FROM fixes").fetchone() == (1,)


def test_advice_noted_by_an_earlier_version_counts_once(tmp_path):
    """Earlier versions noted a failure's advice twice: a 'kb_hit' event
    naming the fix, and an 'advice' event naming none; now one 'advice'
    event names it. The history views count each advice once."""
    db = tmp_path / "kb.db"
    runner("--db", str(db), "record", "--error", "make: *** No rule to make target 'x'.",
           "--resolution", "add the target", check=True)
    with connection(db) as conn:
        conn.executescript("""
            INSERT INTO events (type, ts, session_id, project, project_path, data) VALUES
              ('tool_error', '2026-01-01T00:00:00.000Z', 'old', 'app', '/w', '{"tool":"Bash"}'),
              ('kb_hit', '2026-01-01T00:00:01.000Z', 'old', 'app', '/w', '{"errorKbId":1,"stage":"exact"}'),
              ('advice', '2026-01-01T00:00:01.000Z', 'old', 'app', '/w', '{"tool":"Bash","key":"fix:1"}'),
              ('tool_error', '2026-01-01T00:00:02.000Z', 'new', 'app', '/w', '{"tool":"Bash"}'),
              ('advice', '2026-01-01T00:00:03.000Z', 'new', 'app', '/w',
               '{"tool":"Bash","key":"fix:1","errorKbId":1,"stage":"prefix"}'),
              ('advice', '2026-01-01T00:00:04.000Z', 'new', 'app', '/w', '{"tool":"Read","key":"file:/w/a"}');
        """)
    assert sqlite(db, "SELECT times_advised, stages FROM kb_reused_fixes").stdout == "2|exact,prefix\n"
    assert sqlite(db, "SELECT failures, advised, hit_rate FROM kb_advice_hit_rate").stdout == "2|2|1.0\n"


def test_a_version_11_database_gets_fix_ids_summable_counts_and_no_user_names(tmp_path):
    """v12: each fix gets its stable id and its counts (as this machine's);
    the errors learned keep being learned once; home folders become ~."""
    db = tmp_path / "kb.db"
    runner("--db", str(db), "init", check=True)
    with connection(db) as conn:
        conn.executescript("""
            DROP TABLE fixes; DROP TABLE fix_counts; DROP TABLE learned_errors;
            CREATE TABLE kb_fixes (id INTEGER PRIMARY KEY, error_kb_id INTEGER NOT NULL,
              error_headline TEXT NOT NULL DEFAULT '', resolution TEXT NOT NULL, fix_key TEXT NOT NULL,
              use_count INTEGER NOT NULL DEFAULT 1, ts TEXT NOT NULL, last_used TEXT,
              UNIQUE (error_kb_id, error_headline, fix_key));
            CREATE TABLE resolved_errors (event_id INTEGER PRIMARY KEY, error_kb_id INTEGER, ts TEXT NOT NULL);
            INSERT INTO error_kb (id, ts, error_normalized, error_raw, resolution, use_count)
            VALUES (1, 't', 'No module named <STR>', 'No module named ''yaml'' in /home/alice/shop/app.py',
                    '{"command":"pip install pyyaml"}', 3);
            INSERT INTO kb_fixes VALUES (7, 1, 'No module named ''yaml''', '{"command":"pip install pyyaml"}',
                                         'x', 3, 't', NULL);
            INSERT INTO events (id, type, ts, session_id, project, project_path, data)
            VALUES (5, 'tool_error', 't', 's', 'shop', '/home/alice/shop', '{"file":"/home/alice/shop/app.py"}');
            INSERT INTO resolved_errors VALUES (5, 1, 't');
            PRAGMA user_version = 11;
        """)
    runner("--db", str(db), "init", check=True)
    with connection(db) as conn:
        [(fix_id, uid, learned)] = conn.execute("SELECT f.id, f.uid, c.learned FROM fixes AS f "
                                                "JOIN fix_counts AS c ON c.fix_id = f.id AND c.replica = ''").fetchall()
        assert (fix_id, len(uid), learned) == (7, 32, 3)
        assert conn.execute("SELECT event_id, error_kb_id, session_id FROM learned_errors").fetchall() == [(5, 1, "s")]
        assert conn.execute("SELECT project_path, data FROM events").fetchall() == [
            ("~/shop", '{"file":"~/shop/app.py"}')]
        assert conn.execute("SELECT error_raw FROM error_kb").fetchone() == ("No module named 'yaml' in ~/shop/app.py",)
        assert conn.execute("SELECT count(*) FROM sqlite_schema WHERE name IN ('kb_fixes', 'resolved_errors')"
                            ).fetchone() == (0,)
    # the same fix learned on another machine has the same id
    same = sqlite(db, "SELECT fix_uid('No module named <STR>', 'No module named ''yaml''', "
                      "fix_key('{\"command\":\"pip install pyyaml\"}'))").stdout.strip()
    assert same == uid


def test_a_version_18_database_knows_a_sandboxs_refusal_without_its_program(tmp_path):
    """v19: the signature of the system's refusal relayed by a program
    (`mkdir: x: Operation not permitted`) is made again without the
    program, so a fix learned before the upgrade is told for `cp` too."""
    home = tmp_path / "home"
    db = home / ".reflexion" / "data" / "reflexion.db"
    runner("record", "--error", "mkdir: /work/app/.cache: Operation not permitted",
           "--resolution", "run it with the sandbox disabled",
           env={"HOME": str(home)}, check=True)
    with connection(db) as conn:
        conn.execute("UPDATE error_kb_signatures SET signature = 'mkdir: <V>: Operation not permitted'")
        conn.execute("PRAGMA user_version = 18")
    payload = {"session_id": "s", "cwd": "/work/app", "tool_name": "Bash", "tool_input": {"command": "cp a .cache/"},
               "error": "Exit code 1\ncp: /work/app/.cache/a: Operation not permitted"}
    proc = runner("hook", "PostToolUseFailure", stdin=json.dumps(payload), env={"HOME": str(home)})
    assert "run it with the sandbox disabled" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    with connection(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("SELECT signature FROM error_kb_signatures").fetchall() == [
            ("<V>: Operation not permitted",)]


def test_a_version_19_database_is_keyed_by_the_error_in_a_build_tools_report(tmp_path):
    """v20: a stored signature made of Gradle's report (`FAILURE: Build
    failed with an exception.`, which every Gradle failure shares) is made
    again from the compiler's diagnostic in it: the same failure is then
    found by its own key, and another Gradle failure no longer is."""
    home = tmp_path / "home"
    db = home / ".reflexion" / "data" / "reflexion.db"
    report = ("\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
              "Execution failed for task ':app:compileKotlin'.\n> Compilation error. See log for more details\n\n"
              "BUILD FAILED in 5s")
    error = "Exit code 1\n> Task :app:compileKotlin FAILED\ne: file:///w/app/src/Main.kt:12:5 Unresolved reference: foo" + report
    runner("record", "--error", error, "--resolution", "import com.acme.foo in Main.kt",
           env={"HOME": str(home)}, check=True)
    with connection(db) as conn:
        conn.execute("UPDATE error_kb_signatures SET signature = 'FAILURE: Build failed with an exception.'")
        conn.execute("PRAGMA user_version = 19")

    assert "import com.acme.foo" in told(home, "./gradlew build", error, "s1")
    with connection(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("SELECT signature FROM error_kb_signatures").fetchall() == [
            ("error: Unresolved reference: foo",)]
    # a dependency that cannot be found is another error, though its report reads alike
    other = "Exit code 1" + report.replace("> Compilation error. See log for more details",
                                           "> Could not find com.acme:lib:1.2.3.")
    answer = told(home, "./gradlew build", other, "s2")
    assert not answer or "import com.acme.foo" not in answer, answer


def test_a_version_20_database_knows_a_linters_rule_by_its_message(tmp_path):
    """v21: biome's diagnostics were keyed `<PATH>` (the rule read as a
    path), one key for every rule; the signature is made again as the
    rule with its message, so the same finding is found by its own key and
    another rule's finding is not told its fix."""
    home = tmp_path / "home"
    db = home / ".reflexion" / "data" / "reflexion.db"
    finding = ("Exit code 1\n$ biome check\nsrc/app.ts:7:3 lint/suspicious/noEmptyBlockStatements ━━━━━━━━━━\n\n"
               "  × Unexpected empty block.\n\ncheck ━━━━━━━━━━\n\n  × Some errors were emitted while running checks.")
    runner("record", "--error", finding, "--resolution", "put a comment in the empty catch block",
           env={"HOME": str(home)}, check=True)
    with connection(db) as conn:
        conn.execute("UPDATE error_kb_signatures SET signature = '<PATH>'")
        conn.execute("PRAGMA user_version = 20")

    assert "put a comment in the empty catch block" in told(home, "bun run lint", finding, "s1")
    with connection(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("SELECT signature FROM error_kb_signatures").fetchall() == [
            ("lint/suspicious/noEmptyBlockStatements: Unexpected empty block.",)]
    # a path alone, or another rule's finding, is not that error
    other = finding.replace("lint/suspicious/noEmptyBlockStatements", "lint/style/useConst").replace(
        "Unexpected empty block.", "This let declares a variable that is only assigned once.")
    answer = told(home, "bun run lint", other, "s2")
    assert not answer or "empty catch block" not in answer, answer

def told(home, command, error, session):
    """What the failure hook tells for a Bash call of `command` that failed
    with `error`, in a new `session` of `home` ('' when it tells nothing)."""
    payload = {"session_id": session, "cwd": "/w/app", "tool_name": "Bash",
               "tool_input": {"command": command}, "error": error}
    proc = runner("hook", "PostToolUseFailure", stdin=json.dumps(payload), env={"HOME": str(home)})
    return proc.stdout and json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_version_22_database_keeps_no_text_of_an_error_that_said_nothing(tmp_path):
    """v23: an error whose output said nothing identifiable (here a user's
    reason for declining a call, given as the bare result) loses its text
    when errkb first opens the file for writing; an identified error and a
    row that is not JSON are left as they were, and the words are not in
    the file's freed pages either."""
    home = tmp_path / "home"
    db = home / ".reflexion" / "data" / "reflexion.db"
    words = "wait, first copy the favicon over to the other repository"
    for session, error in (("s1", "Exit code 1\nModuleNotFoundError: No module named 'yaml'"), ("s2", words)):
        payload = {"session_id": session, "cwd": "/w/app", "tool_name": "Bash",
                   "tool_input": {"command": "git commit -m x"}, "error": error, "tool_use_id": session}
        runner("hook", "PostToolUseFailure", stdin=json.dumps(payload), env={"HOME": str(home)}, check=True)
    with connection(db) as conn:
        # as version 22 stored it: the text kept beside identified: false
        conn.execute("UPDATE events SET data = json_set(data, '$.error', ?, '$.errorRaw', ?, '$.headline', ?) "
                     "WHERE data ->> '$.toolUseId' = 's2'", (words, words, words))
        conn.execute("INSERT INTO events (type, ts, session_id, data) VALUES "
                     "('tool_error', '2026-01-01T00:00:00.000Z', 's3', 'not json')")
        conn.execute("PRAGMA user_version = 22")
        before = dict(conn.execute("SELECT session_id, data FROM events WHERE session_id IN ('s1', 's3')"))
    files = lambda: b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))  # noqa: E731
    assert words.encode() in files()

    runner("--db", str(db), "init", env={"HOME": str(home)}, check=True)
    with connection(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        bare = json.loads(conn.execute("SELECT data FROM events WHERE session_id = 's2'").fetchone()[0])
        after = dict(conn.execute("SELECT session_id, data FROM events WHERE session_id IN ('s1', 's3')"))
    assert bare["identified"] is False and bare["subject"] == "git commit"
    assert not {"error", "errorRaw", "signature", "headline"} & bare.keys()
    assert after == before and "No module named" in after["s1"]
    assert words.encode() not in files()


def test_a_version_22_database_loses_the_user_names_it_did_not_know(tmp_path):
    """v23 knows a WSL distribution's home seen from Windows and a quoted
    Windows profile whose name has spaces: what an older version stored
    with them is redacted when errkb first opens the file for writing. Its
    events' own members are left as they are (the signature is no
    credential), and a signature an upgrade to v17 took for one is made
    again from the error's text."""
    db = tmp_path / "kb.db"
    runner("--db", str(db), "init", check=True)
    texts = ["python \\\\wsl$\\Ubuntu\\home\\zoe\\shop\\app.py: No module named 'yaml'",
             'cd "C:\\Users\\Zoe Quill" failed: access denied',
             # (a share's host in any case)
             "ls \\\\WSL$\\Debian\\home\\yves\\x: access denied"]
    with connection(db) as conn:
        for n, text in enumerate(texts):
            conn.execute("INSERT INTO events (type, ts, session_id, data) VALUES ('tool_error', "
                         "'2026-01-01T00:00:00.000Z', ?, json_object('errorRaw', ?, 'signature', ?))",
                         (f"s{n}", text, ["ModuleNotFoundError: No module named <STR>", "[REDACTED]", "x"][n]))
        conn.execute("PRAGMA user_version = 22")
    runner("--db", str(db), "init", check=True)
    with connection(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stored = [json.loads(d) for (d,) in conn.execute("SELECT data FROM events ORDER BY session_id")]
    assert [e["errorRaw"] for e in stored][:2] == ["python ~\\shop\\app.py: No module named 'yaml'",
                                                   'cd "~" failed: access denied']
    assert stored[2]["errorRaw"] == "ls ~\\x: access denied"
    signature = sqlite(":memory:", """SELECT error_signature('cd "~" failed: access denied')""").stdout.strip()
    assert [e["signature"] for e in stored][:2] == ["ModuleNotFoundError: No module named <STR>", signature]
    assert signature != "[REDACTED]"
    dump = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    assert b"zoe" not in dump and b"Quill" not in dump and b"yves" not in dump


def test_a_version_11_database_is_cleaned_of_secrets_and_of_what_said_nothing(tmp_path):
    """Before version 12 an event did not say whether its error was
    identified: the upgrade asks its stored text, and one that says
    nothing (a user's words) loses it. Secrets and terminal escapes go as
    the upgrade to 17 took them out, and the signature that took for a
    credential is made again."""
    db = tmp_path / "kb.db"
    runner("--db", str(db), "init", check=True)
    words = "no, use git rm instead please"
    secret = "AKIAIOSFODNN7EXAMPLE"
    with connection(db) as conn:
        for session, raw in (("s1", words), ("s2", f"\x1b[31mfatal:\x1b[0m bad object {secret}")):
            conn.execute("INSERT INTO events (type, ts, session_id, data) VALUES ('tool_error', "
                         "'2026-01-01T00:00:00.000Z', ?, json_object('error', ?, 'errorRaw', ?, 'signature', ?))",
                         (session, raw, raw, raw))
        conn.execute("PRAGMA user_version = 11")
    runner("--db", str(db), "init", check=True)
    with connection(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        said_nothing, fatal = [json.loads(d) for (d,) in conn.execute("SELECT data FROM events ORDER BY session_id")]
    assert not {"error", "errorRaw", "signature", "headline"} & said_nothing.keys()
    assert fatal["errorRaw"] == "fatal: bad object [REDACTED]"
    assert fatal["signature"] not in ("[REDACTED]", "") and secret not in json.dumps(fatal)
    dump = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    assert words.encode() not in dump and secret.encode() not in dump
