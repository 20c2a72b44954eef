"""Bad input never blocks the agent and never loses data: every case exits
0 with nothing on stdout or stderr, stores the event whenever storing was
possible, and leaves a line in the hook log."""
import json
import os
import sqlite3
import subprocess
import threading
import time
from contextlib import closing

import pytest

from conftest import DIST, RUNNER, connection, runner

GOOD = {"session_id": "s1", "cwd": "/work/app", "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": "t1", "error": "make: *** [all] Error 2"}
HOSTILE = "x'); DROP TABLE events; --"


def body(**changes):
    data = {**GOOD, **changes}
    return json.dumps({k: v for k, v in data.items() if v is not ...}).encode()


# (id, event, stdin bytes, stored?, what the log must mention)
CASES = [
    ("empty stdin", "PostToolUseFailure", b"", False, "payload is not JSON (0 bytes)"),
    ("invalid JSON", "PostToolUseFailure", b'{"session_id": "s1", ', False, "payload is not JSON"),
    ("JSON array", "PostToolUseFailure", b"[1, 2, 3]", True, "not an object"),
    ("JSON string", "PostToolUseFailure", b'"an error"', True, "not an object"),
    ("no session_id", "PostToolUseFailure", body(session_id=...), True, "no session_id"),
    ("session_id a number", "PostToolUseFailure", body(session_id=7), True, "no session_id"),
    ("no cwd", "PostToolUseFailure", body(cwd=...), True, "no cwd"),
    ("no error", "PostToolUseFailure", body(error=...), True, "error is missing"),
    ("error an object", "PostToolUseFailure", body(error={"message": "boom"}), True, "error is an object"),
    ("error a number", "PostToolUseFailure", body(error=42), True, "error is a number"),
    ("error of 10 MB", "PostToolUseFailure", body(error="E" * 10_000_000), True, "payload is large"),
    ("invalid UTF-8", "PostToolUseFailure", body(error="bad \udcff byte").replace(b"\\udcff", b"\xff"), True,
     "not valid UTF-8"),
    ("raw NUL bytes", "PostToolUseFailure", body() + b"\x00\x00", True, "NUL bytes"),
    ("escaped NUL in error", "PostToolUseFailure", body(error="a\u0000b"), True, "NUL characters"),
    ("tool_input not an object", "PostToolUse", body(hook_event_name="PostToolUse", tool_input="make all"), True,
     "tool_input is a string"),
    ("hostile SQL, failure", "PostToolUseFailure",
     body(session_id=HOSTILE, cwd=HOSTILE, tool_name=HOSTILE, error=HOSTILE, tool_use_id=HOSTILE, extra=None)[:-1]
     + b', "error2": 1}', True, "session_id is not an identifier"),
    ("hostile SQL, tool use", "PostToolUse",
     body(session_id=HOSTILE, cwd=HOSTILE, tool_name=HOSTILE, tool_input={"command": HOSTILE, "file_path": HOSTILE},
          hook_event_name="PostToolUse"),
     True, "cwd is not an absolute path"),
    ("unknown event", "NoSuchEvent", body(), False, "no hook for event"),
]


def events(db):
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def run_hook(event, stdin, env):
    proc = subprocess.run([str(RUNNER), "hook", event], input=stdin, capture_output=True, env=env, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    return proc


@pytest.fixture
def home(tmp_path):
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def log_of(home):
    path = home / ".reflexion" / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


@pytest.mark.parametrize("name, event, stdin, stored, logged", CASES, ids=[c[0] for c in CASES])
def test_bad_payloads(home, name, event, stdin, stored, logged):
    runner("init", env={"HOME": str(home)}, check=True)
    db = home / ".reflexion" / "data" / "reflexion.db"
    run_hook(event, stdin, {"HOME": str(home)})
    assert events(db) == (1 if stored else 0)
    assert logged in log_of(home)
    if name.startswith("hostile"):
        # Stored as given, as data: the tables are intact.
        with closing(sqlite3.connect(db)) as conn:
            (session, project_path) = conn.execute("SELECT session_id, project_path FROM events").fetchone()
            tables = {t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert (session, project_path) == (HOSTILE, HOSTILE)
        assert {"events", "error_kb", "learned_errors"} <= tables


def test_sql_in_free_text_is_ordinary(home):
    """Errors and commands may hold quotes and SQL (a failing sqlite3 command
    does): stored verbatim, nothing logged."""
    runner("init", env={"HOME": str(home)}, check=True)
    db = home / ".reflexion" / "data" / "reflexion.db"
    error = f"Error: near \"{HOSTILE}\": syntax error"
    run_hook("PostToolUseFailure", body(error=error, tool_input={"command": f"sqlite3 x.db \"{HOSTILE}\""}),
             {"HOME": str(home)})
    with closing(sqlite3.connect(db)) as conn:
        (raw,) = conn.execute("SELECT json_extract(data, '$.errorRaw') FROM events").fetchone()
    assert raw == error and log_of(home) == ""


def test_database_file_that_is_not_sqlite(home):
    db = home / "garbage.db"
    db.write_bytes(os.urandom(4096))
    run_hook("PostToolUseFailure", body(), {"HOME": str(home), "ERRKB_DB": str(db)})
    assert "file is not a database" in log_of(home)


def test_missing_home_logs_to_the_temporary_directory(tmp_path):
    run_hook("PostToolUseFailure", body(), {"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    [log] = tmp_path.glob("errkb-*-hooks.log")
    assert "HOME is not set" in log.read_text()


def test_a_locked_database_is_waited_for(home):
    runner("init", env={"HOME": str(home)}, check=True)
    db = home / ".reflexion" / "data" / "reflexion.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    hook = subprocess.Popen([str(RUNNER), "hook", "PostToolUseFailure"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"HOME": str(home)})
    hook.stdin.write(body())
    hook.stdin.close()
    time.sleep(0.3)  # the hook is waiting for the lock now (not timed: it only must not give up)
    holder.execute("ROLLBACK")
    holder.close()
    assert hook.wait(timeout=60) == 0
    assert events(db) == 1 and log_of(home) == ""


def test_a_database_locked_too_long_is_logged(home):
    runner("init", env={"HOME": str(home)}, check=True)
    db = home / ".reflexion" / "data" / "reflexion.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        # the wait is 5 s unless configured; a short one keeps the test short
        run_hook("PostToolUseFailure", body(), {"HOME": str(home), "ERRKB_BUSY_TIMEOUT_MS": "200"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "database is locked" in log_of(home)
    run_hook("PostToolUseFailure", body(), {"HOME": str(home)})  # once free, it stores again
    assert events(db) == 1


@pytest.mark.model
def test_missing_model_for_the_vector_stage(home, tmp_path):
    runner("init", env={"HOME": str(home)}, check=True)
    db = home / ".reflexion" / "data" / "reflexion.db"
    runner("record", "--error", "segmentation fault in module x", "--resolution", "fix", env={"HOME": str(home)}, check=True)
    runner("embed", env={"HOME": str(home)}, check=True)
    run_hook("PostToolUseFailure", body(error="a completely different failure text"),
             {"HOME": str(home), "ERRKB_MODEL": str(tmp_path / "no-model")})
    assert events(db) == 1
    assert "search stage skipped: no model at" in log_of(home)


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_disk_full(home, small_disk):
    db = small_disk / "kb.db"
    runner("--db", str(db), "init", env={"HOME": str(home)}, check=True)
    with open(small_disk / "filler", "wb", buffering=0) as f:  # fill the disk (unbuffered: nothing left to flush)
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    run_hook("PostToolUseFailure", body(error="x" * 400_000), {"HOME": str(home), "ERRKB_DB": str(db)})
    assert "(the disk holding it is full)" in log_of(home)


def test_read_only_database_and_directory(home, small_disk):
    db = small_disk / "kb.db"
    runner("--db", str(db), "init", env={"HOME": str(home)}, check=True)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    run_hook("PostToolUseFailure", body(), {"HOME": str(home), "ERRKB_DB": str(db)})
    run_hook("PostToolUseFailure", body(), {"HOME": str(home), "ERRKB_DB": str(small_disk / "new.db")})
    log = log_of(home)
    assert log.count("folder is read-only") == 2


def test_a_panic_inside_a_hook_is_caught_and_logged(home):
    """A panic unwinds to the hook's own catch (through the unwinder the
    runner links in): exit 0, nothing printed, the trace in the log."""
    scripts = home / ".reflexion" / "sql" / "hooks"
    scripts.mkdir(parents=True)
    (scripts / "PostToolUseFailure.sql").write_text("SELECT errkb_debug('panic');\n")
    run_hook("PostToolUseFailure", body(), {"HOME": str(home)})
    assert "internal error (deliberate panic requested by errkb_debug('panic'))" in log_of(home)
