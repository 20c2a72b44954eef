"""Hooks under load and under kill -9, on one database file."""
import json
import random
import signal
import sqlite3
import statistics
import subprocess
import threading
import time
from contextlib import closing

import pytest

from conftest import RUNNER, runner

SESSIONS, CALLS = 8, 200


def call(home, event, body):
    start = time.perf_counter()
    proc = subprocess.run([str(RUNNER), "hook", event], input=json.dumps(body), capture_output=True, text=True,
                          env={"HOME": str(home)})
    return proc, time.perf_counter() - start


def session_calls(session, n):
    """A plausible mix: failures, fixes, successes, pre-tool checks."""
    rng = random.Random(session)
    for i in range(n):
        kind = rng.choice(["fail", "use", "use", "pre"])
        base = {"session_id": f"s{session}", "cwd": f"/work/p{session % 3}", "tool_use_id": f"t{i}"}
        if kind == "fail":
            yield "PostToolUseFailure", {**base, "tool_name": "Bash", "tool_input": {"command": "make"},
                                         "error": f"error {rng.randrange(20)}: cannot build '/src/m{i}.c'"}
        elif kind == "use":
            yield "PostToolUse", {**base, "tool_name": rng.choice(["Bash", "Edit"]),
                                  "tool_input": {"command": "make", "file_path": f"/src/m{i}.c"}}
        else:
            yield "PreToolUse", {**base, "tool_name": rng.choice(["Bash", "Edit"]),
                                 "tool_input": {"command": "make", "file_path": f"/src/m{i}.c"}}


def test_eight_sessions_in_parallel(tmp_path):
    runner("init", env={"HOME": str(tmp_path)}, check=True)
    latencies, failures, stored = [], [], {"PostToolUseFailure": 0, "PostToolUse": 0}
    lock = threading.Lock()

    def session(s):
        for event, body in session_calls(s, CALLS):
            proc, seconds = call(tmp_path, event, body)
            with lock:
                latencies.append(seconds)
                if proc.returncode != 0 or proc.stderr:
                    failures.append((event, proc.returncode, proc.stderr))
                if event in stored:
                    stored[event] += 1

    threads = [threading.Thread(target=session, args=(s,)) for s in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and len(latencies) == SESSIONS * CALLS
    with closing(sqlite3.connect(tmp_path / ".reflexion" / "data" / "reflexion.db")) as conn:
        counts = dict(conn.execute("SELECT type, count(*) FROM events WHERE type NOT IN ('kb_hit', 'advice') GROUP BY type"))
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert counts == {"tool_error": stored["PostToolUseFailure"], "tool_use": stored["PostToolUse"]}
    assert not (tmp_path / ".reflexion" / "logs" / "hooks.log").exists()
    latencies.sort()
    print(f"\n{SESSIONS}×{CALLS} hook calls: p50 {statistics.median(latencies) * 1000:.1f} ms, "
          f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms")


@pytest.mark.model
def test_kill_9_mid_write_leaves_a_consistent_database(tmp_path):
    runner("init", env={"HOME": str(tmp_path)}, check=True)
    db = tmp_path / ".reflexion" / "data" / "reflexion.db"
    rng = random.Random(9)
    # How long a hook takes here: kills land anywhere from before its start
    # to just after its end, whatever the machine's speed.
    durations = [call(tmp_path, event, body)[1] for event, body in session_calls(2, 9)]
    span = 1.2 * statistics.median(durations)
    completed = killed = 0
    for i, (event, body) in enumerate(session_calls(1, 150)):
        proc = subprocess.Popen([str(RUNNER), "hook", event], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env={"HOME": str(tmp_path)})
        proc.stdin.write(json.dumps(body).encode())
        proc.stdin.close()
        if i % 10 == 0:
            status = proc.wait(timeout=60)  # some run to the end
        else:
            time.sleep(rng.uniform(0, span))
            proc.send_signal(signal.SIGKILL)
            status = proc.wait(timeout=60)
        killed += status == -signal.SIGKILL
        if status == 0:
            completed += event != "PreToolUse"  # finished before the kill: its event must be there
    # Both happened many times: hooks cut short at every point, and hooks done.
    assert killed >= 20 and completed >= 3, (killed, completed)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = conn.execute("SELECT data FROM events").fetchall()
    assert len(rows) >= completed
    assert all(json.loads(d) for (d,) in rows)  # no torn rows
    runner("embed", env={"HOME": str(tmp_path)}, check=True)  # and it goes on working


def test_the_write_ahead_log_stays_short_and_loses_nothing(tmp_path):
    """Hooks close without a checkpoint (the log outlives them), and the
    writing one that finds it past 64 pages folds it into the database and
    truncates it, then writes."""
    runner("init", env={"HOME": str(tmp_path)}, check=True)
    db = tmp_path / ".reflexion" / "data" / "reflexion.db"
    wal = db.with_name(db.name + "-wal")
    sizes = []
    for i, (event, body) in enumerate(session_calls(3, 150)):
        proc, _ = call(tmp_path, event, body)
        assert (proc.returncode, proc.stderr) == (0, "")
        sizes.append(wal.stat().st_size if wal.exists() else 0)
    frame = 4096 + 24
    assert max(sizes) < 80 * frame  # 64 pages, and what one hook adds past them
    assert sum(1 for a, b in zip(sizes, sizes[1:]) if b < a) >= 2  # checkpointed and truncated, repeatedly
    assert sum(size > 0 for size in sizes) > len(sizes) // 2  # in between, closing neither syncs nor deletes it
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        stored = conn.execute("SELECT count(*) FROM events WHERE type IN ('tool_use', 'tool_error')").fetchone()[0]
    assert stored == sum(1 for event, _ in session_calls(3, 150) if event != "PreToolUse")
