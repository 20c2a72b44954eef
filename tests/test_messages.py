"""errkb's error messages, as a user meets them, snapshot-tested
(tests/snapshots/message-*.txt): what went wrong and what to do, in words
that stay put."""
import subprocess

import pytest

from conftest import DIST, runner
from snapshot import snapshot


def said(proc, tmp_path):
    """Exit status and standard error, with the test's folder as <TMP>."""
    return f"exit {proc.returncode}\n{proc.stderr.replace(str(tmp_path), '<TMP>')}"


CASES = {
    "search-without-a-knowledge-base": lambda t: runner("--db", str(t / "kb.db"), "search", "boom"),
    "learn-a-missing-path": lambda t: runner("--db", str(t / "kb.db"), "learn", str(t / "nowhere.jsonl")),
    "run-with-a-positional-parameter": lambda t: (
        (t / "q.sql").write_text("SELECT ?;"), runner("--db", str(t / "kb.db"), "run", str(t / "q.sql")))[1],
    "run-a-bad-param-flag": lambda t: runner("--db", str(t / "kb.db"), "run", str(t / "q.sql"), "--param", "x"),
    "install-over-invalid-settings": lambda t: (
        (t / ".claude").mkdir(), (t / ".claude" / "settings.json").write_text("{ not json"),
        runner("install", env={"HOME": str(t)}))[2],
}


@pytest.mark.parametrize("name", CASES)
def test_the_runner_says_what_went_wrong(name, tmp_path):
    snapshot(f"message-{name}", said(CASES[name](tmp_path), tmp_path))


SQL_CASES = {
    "wrong-number-of-arguments": "SELECT normalize_error('a', 'b');",
    "embed-batch-not-a-json-array": "SELECT * FROM embed_batch('not json');",
    "edit-hunk-one-argument": "SELECT edit_hunk('a');",
}


@pytest.mark.parametrize("name", SQL_CASES)
def test_sql_functions_say_what_went_wrong(name):
    proc = subprocess.run(["sqlite3", ":memory:"], input=f".load {DIST / 'errkb'}\n{SQL_CASES[name]}\n",
                          capture_output=True, text=True, timeout=60)
    snapshot(f"message-sql-{name}", proc.stderr)
