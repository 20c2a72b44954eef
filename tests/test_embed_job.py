"""The batch embedding job (errkb embed, sql/jobs/embed_batch.sql): new rows,
a failing row, nothing to do, interruption, concurrent writers."""
import signal
import sqlite3
import subprocess
import threading
import time

import pytest

from conftest import RUNNER, connection, insert_kb, runner, sqlite, sqlite_value

pytestmark = pytest.mark.model  # the embedding model and ONNX Runtime (make model)


def vectors(db):
    """Stored vector ids, read from vec0's shadow table with plain sqlite3."""
    with connection(db) as conn:
        return sorted(r for (r,) in conn.execute("SELECT rowid FROM vec_error_kb_rowids"))


def embed(db):
    return runner("--db", str(db), "embed", check=True).stdout


def test_five_new_rows_are_embedded(kb):
    insert_kb(kb, [{"error_normalized": f"error {c} in module"} for c in "abcde"])
    assert embed(kb) == "embedded 5, skipped 0\n"
    assert vectors(kb) == [1, 2, 3, 4, 5]
    assert sqlite_value(kb, "SELECT count(*) FROM vec_error_kb WHERE vec_length(embedding) = 384") == "5"


def test_a_failing_row_is_skipped_and_counted(kb):
    insert_kb(kb, [{"error_normalized": "first error"}, {"error_normalized": "   "}, {"error_normalized": "third error"}])
    assert embed(kb) == "embedded 2, skipped 1\n"
    assert vectors(kb) == [1, 3]


def test_nothing_to_do_returns_at_once(kb, tmp_path):
    insert_kb(kb, [{"error_normalized": "only error"}])
    embed(kb)
    # With nothing to do the model is never loaded: a missing one is no error...
    no_model = {"ERRKB_MODEL": str(tmp_path / "no-model")}
    assert runner("--db", str(kb), "embed", env=no_model, check=True).stdout == "embedded 0, skipped 0\n"
    # ...while the same run with work to do needs it.
    insert_kb(kb, [{"error_normalized": "another error"}])
    proc = runner("--db", str(kb), "embed", env=no_model)
    assert proc.returncode == 2 and "embed_model(): no model at" in proc.stderr


def test_vectors_match_embed(kb):
    insert_kb(kb, [{"error_normalized": "Cannot find module <STR>"}])
    embed(kb)
    assert sqlite_value(kb, "SELECT vec_distance_l2(embedding, embed('Cannot find module <STR>')) < 1e-5 "
                            "FROM vec_error_kb") == "1"


def test_interrupted_run_resumes_without_duplicates(kb):
    insert_kb(kb, [{"error_normalized": f"failure {i} while building target number {i * 7}"} for i in range(3000)])
    job = subprocess.Popen([str(RUNNER), "--db", str(kb), "embed"], stdout=subprocess.PIPE)
    deadline = time.time() + 60
    while len(vectors(kb)) < 200 and time.time() < deadline:
        time.sleep(0.01)
    job.send_signal(signal.SIGSTOP)  # frozen where it is (200 of 3000 done), then killed there
    job.send_signal(signal.SIGKILL)
    job.wait()
    done_before = len(vectors(kb))
    assert 200 <= done_before < 3000
    out = embed(kb)
    assert out == f"embedded {3000 - done_before}, skipped 0\n"
    assert vectors(kb) == list(range(1, 3001))
    assert sqlite_value(kb, "PRAGMA integrity_check") == "ok"


def test_hooks_can_write_while_the_job_runs(kb):
    insert_kb(kb, [{"error_normalized": f"error {i} in file number {i}"} for i in range(1500)])
    job = subprocess.Popen([str(RUNNER), "--db", str(kb), "embed"], stdout=subprocess.PIPE, text=True)
    written, failures = [], []

    def writer():
        conn = sqlite3.connect(kb, timeout=5)
        for i in range(300):
            try:
                with conn:
                    conn.execute("INSERT INTO events (type, ts, session_id, data) VALUES ('tool_use', ?, 's', '{}')",
                                 (f"2026-01-01T00:00:{i:02d}.000Z",))
                    conn.execute("INSERT INTO error_kb (ts, error_normalized) VALUES ('t', ?)", (f"late error {i}",))
                written.append(i)
            except sqlite3.Error as e:
                failures.append(e)
            time.sleep(0.002)
        conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    thread.join()
    out, _ = job.communicate(timeout=120)
    assert job.returncode == 0 and out.startswith("embedded ")
    assert failures == [] and len(written) == 300
    embed(kb)  # the rows written meanwhile are picked up by the next run
    assert len(vectors(kb)) == 1800
    assert sqlite_value(kb, "SELECT count(*) FROM events") == "300"


def test_two_jobs_never_run_at_once(kb):
    insert_kb(kb, [{"error_normalized": f"error {i} again"} for i in range(2000)])
    first = subprocess.Popen([str(RUNNER), "--db", str(kb), "embed"], stdout=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not vectors(kb) and time.time() < deadline:
        time.sleep(0.02)
    assert first.poll() is None, "the first job ended before the second started"
    second = runner("--db", str(kb), "embed", check=True)
    assert second.stdout == "another embedding job is running\n"
    first.communicate(timeout=120)
    assert len(vectors(kb)) == 2000


def test_progress_shows_in_a_terminal_only(kb):
    insert_kb(kb, [{"error_normalized": f"error {i} while testing progress"} for i in range(120)])
    # `script` runs the job on a pseudo-terminal, as a person would.
    tty = subprocess.run(["script", "-qec", f"{RUNNER} --db {kb} embed", "/dev/null"],
                         capture_output=True, text=True, timeout=120)
    assert tty.returncode == 0
    assert "120/120" in tty.stdout or "/120" in tty.stdout  # the bar, drawn on the terminal
    sqlite(kb, "DELETE FROM vec_error_kb")
    piped = runner("--db", str(kb), "embed", check=True)
    assert piped.stdout == "embedded 120, skipped 0\n" and piped.stderr == ""
