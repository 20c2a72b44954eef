"""Shared helpers: every test drives the built artifacts in dist/ through
the real sqlite3 shell or the real runner binary, on real files."""
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
EXTENSION = DIST / "errkb.so"
RUNNER = DIST / "errkb"
SQL = ROOT / "sql"

if not EXTENSION.exists() or not RUNNER.exists():
    raise RuntimeError("dist/ is not built: run 'make loadable' (make test does)")
if shutil.which("sqlite3") is None:
    raise RuntimeError("the sqlite3 shell is missing: run 'make deps'")


# The schema version sql/schema.sql sets (its last PRAGMA user_version).
SCHEMA_VERSION = int((SQL / "schema.sql").read_text().rsplit("PRAGMA user_version = ", 1)[1].split(";")[0])


# What errkb says is in Korean (the original system's language) unless a test asks for English
# (ERRKB_LANGUAGE=en, or "language" in config.json): whatever the locale
# of the machine that runs the tests.
LANGUAGE_ENV = {"ERRKB_LANGUAGE": "ko"}


def sqlite(db, *statements, stdin=None, load=True, check=True, env=None, extension=None):
    """Run the sqlite3 shell on `db` (a path or ':memory:') with the
    extension loaded; each statement is a separate command-line argument.
    Returns the CompletedProcess (text mode, UTF-8)."""
    cmd = ["sqlite3", "-bail" if stdin is None else "-batch"]
    if load:
        cmd += ["-cmd", f".load {Path(extension or EXTENSION).with_suffix('')}"]
    cmd += [str(db), *statements]
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ERRKB_")}
    full_env.update(LANGUAGE_ENV)
    full_env.update(env or {})
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, encoding="utf-8", errors="replace",
                          env=full_env)
    if check and proc.returncode != 0:
        raise AssertionError(f"sqlite3 failed ({proc.returncode}): {proc.stderr}")
    return proc


def sqlite_value(db, statement):
    """The single value a statement prints, as a string."""
    return sqlite(db, statement).stdout.rstrip("\n")


# The real Claude Code client, pinned and installed by `make claude-code`.
CLAUDE_PLATFORM = subprocess.run(["node", "-p", "process.platform + '-' + process.arch"],
                                 capture_output=True, text=True).stdout.strip()
CLAUDE = ROOT / ".cache" / "claude-code" / "node_modules" / "@anthropic-ai" / f"claude-code-{CLAUDE_PLATFORM}" / "claude"


def hooks_table():
    """errkb's hooks as the runner declares them: [{event, matcher, timeout}]."""
    declared = json.loads(runner("plugin-hooks", check=True).stdout)["hooks"]
    return [{"event": event, "matcher": group.get("matcher"), "timeout": group["hooks"][0]["timeout"]}
            for event, [group] in declared.items()]


# Vectors stored by hand must say which model made them (the embedding job
# writes this row; the vector stage reads only vectors of the model in use).
RECORD_VECTOR_MODEL = ("INSERT OR REPLACE INTO vector_model (one, model, dimensions) "
                       "SELECT 1, embed_model() ->> '$.model', embed_model() ->> '$.dimensions'")

MODEL_DIR = DIST / "model"            # int8, the default beside the extension
FP32_MODEL_DIR = DIST / "model-fp32"  # the float32 reference


@pytest.fixture
def bare_extension(tmp_path):
    """A copy of the extension alone in a folder: no model or ONNX Runtime
    beside it, and a HOME with nothing in it."""
    folder = tmp_path / "bare"
    folder.mkdir()
    shutil.copy(EXTENSION, folder / "errkb.so")
    (tmp_path / "home").mkdir()
    return folder / "errkb.so", {"HOME": str(tmp_path / "home")}


def runner(*args, stdin=None, env=None, check=False, cwd=None, timeout=120):
    """Run dist/errkb with `args`; stdin as text. A run past `timeout`
    seconds fails the test (subprocess.TimeoutExpired) instead of hanging it."""
    # (nor the agents' own folders: a test's HOME holds its ~/.claude and ~/.codex)
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith("ERRKB_") and k not in ("CODEX_HOME", "CLAUDE_CONFIG_DIR")}
    full_env.update(LANGUAGE_ENV)
    full_env.update(env or {})
    proc = subprocess.run(
        [str(RUNNER), *args], input=stdin, capture_output=True, text=True, env=full_env, cwd=cwd,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"errkb {args} failed ({proc.returncode}): {proc.stderr}")
    return proc


def peak_rss_kib(cmd, env=None, tmp_path=None):
    """Run `cmd` under GNU time: (exit code, stdout, stderr, its peak RSS in
    KiB). Not os.wait4 of a child of this process: a child forked from pytest
    counts pytest's own memory until it execs."""
    import tempfile
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *map(str, cmd)],
                              capture_output=True, text=True, env=env)
        return proc.returncode, proc.stdout, proc.stderr, int(report.read().split()[-1])


@pytest.fixture
def kb(tmp_path):
    """A fresh knowledge base file with the schema from sql/schema.sql,
    created through the sqlite3 shell after a single .load."""
    db = tmp_path / "kb.db"
    sqlite(db, f".read {SQL / 'schema.sql'}")
    return db


@contextlib.contextmanager
def connection(db):
    """Python's own sqlite3 connection, committed and *closed* on exit.
    (`with sqlite3.connect()` only commits; the close then happens whenever
    the garbage collector runs, and closing the last connection to a WAL
    database checkpoints under a lock that can hit a concurrent sqlite3 shell.)"""
    conn = sqlite3.connect(db)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


def insert_kb(db, rows):
    """Insert error_kb rows (dicts) with Python's own sqlite3 module, so
    fixtures do not depend on the code under test."""
    with connection(db) as conn:
        for row in rows:
            row = {"ts": "2026-01-01T00:00:00.000Z", "use_count": 0, **row}
            cols = ", ".join(row)
            conn.execute(f"INSERT INTO error_kb ({cols}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
