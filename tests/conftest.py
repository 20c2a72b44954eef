"""Shared helpers: every test drives the built artifacts in dist/ through
the real sqlite3 shell or the real runner binary, on real files."""
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# Every temporary file of a run goes into one folder of the run's own,
# errkb-tests-* in $TMPDIR (or /tmp), removed when the run ends, passed or
# failed: pytest's tmp_path folders (basetemp) and what the tests and the
# programs they start put in $TMPDIR. `pytest --basetemp=DIR` keeps the
# tmp_path folders in DIR instead, to look into after a failure.
RUN_TMP: Path | None = None
_FOR_OTHERS: list[Path] = []  # folders_for_others made outside RUN_TMP


@pytest.hookimpl(tryfirst=True)  # before pytest's own reads the basetemp
def pytest_configure(config):
    global RUN_TMP
    RUN_TMP = Path(tempfile.mkdtemp(prefix="errkb-tests-"))
    RUN_TMP.chmod(0o755)  # folder_for_others: other users pass through it
    (RUN_TMP / "tmp").mkdir(mode=0o755)
    if config.option.basetemp is None:
        config.option.basetemp = str(RUN_TMP / "pytest")
    os.environ["TMPDIR"] = str(RUN_TMP / "tmp")
    tempfile.tempdir = None  # tempfile reads TMPDIR again


def pytest_unconfigure(config):
    for folder in [*_FOR_OTHERS, RUN_TMP]:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _open_to_others(folder):
    """Whether other users can reach what is in `folder` (x on it and on
    every folder above it)."""
    return all(p.stat().st_mode & 0o001 for p in [folder, *folder.parents])


def folder_for_others(prefix):
    """A new, empty folder on a path other users may walk (tests that run
    programs as nobody, such as a PostgreSQL server started as root, need
    one): in the run's folder when the way there is open, otherwise in the
    first of /tmp, /var/tmp, /dev/shm whose way is; removed at the end of
    the run at the latest. The folder itself is the caller's to open up."""
    for top in (RUN_TMP / "tmp", Path("/tmp"), Path("/var/tmp"), Path("/dev/shm")):
        if top.is_dir() and _open_to_others(top):
            folder = Path(tempfile.mkdtemp(prefix=prefix, dir=top))
            if top != RUN_TMP / "tmp":
                _FOR_OTHERS.append(folder)
            return folder
    pytest.skip("no temporary folder other users can reach")
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
