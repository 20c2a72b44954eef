"""The installed setup and the truth about its health: what `errkb install`
puts in place (the model included), what `errkb doctor` says in each fault
it must tell apart (through the real runner, on real files, a real full
disk and a real read-only database where this machine allows them), and
vectors that carry their model."""
import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (DIST, FP32_MODEL_DIR, MODEL_DIR, RUNNER, connection, folder_for_others, peak_rss_kib,
                      runner)

IS_ROOT = os.geteuid() == 0
NOBODY = 65534


def failure(session="s1", command="python3 app.py", error="ModuleNotFoundError: No module named 'yaml'"):
    return json.dumps({"session_id": session, "transcript_path": "/nowhere.jsonl", "cwd": "/work/app",
                       "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                       "tool_input": {"command": command}, "tool_use_id": f"toolu_{time.monotonic_ns()}",
                       "error": error})


def installed(tmp_path):
    """A HOME where dist/errkb install ran; returns (home, env)."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    runner("install", env=env, check=True)
    return home, env


def installed_runner(home, *args, stdin=None, env=None):
    """The runner the hooks run, away from dist/ (where the test model lies)."""
    return subprocess.run([str(home / ".reflexion" / "bin" / "errkb"), *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env={"HOME": str(home), "PATH": "/usr/bin:/bin", **(env or {})})


def doctor(env, *prefix):
    full = {k: v for k, v in os.environ.items() if not k.startswith("ERRKB_")} | env
    return subprocess.run([*prefix, str(RUNNER), "doctor"], capture_output=True, text=True, env=full, timeout=120)


def lines(report, mark):
    return [line for line in report.stdout.splitlines() if line.startswith(mark)]


# --- install puts in place what the hooks need --------------------------------

@pytest.mark.model
def test_install_installs_the_model_it_was_built_with_and_says_which(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    out = runner("install", env={"HOME": str(home)}, check=True).stdout
    model = home / ".reflexion" / "lib" / "model"
    assert (f"model: the test model this build carries (all-MiniLM-L6-v2 int8; English only, small, made for the "
            f"tests) copied to {model}; for the production model") in out
    assert (model / "model.onnx").exists() and (model / "tokenizer.json").exists()
    # the installed runner, with no source tree in reach, embeds with it
    answer = installed_runner(home, "--db", ":memory:", "run", "/dev/stdin", stdin="SELECT embed_model();")
    assert json.loads(answer.stdout)["model"].startswith("all-MiniLM-L6-v2 int8 sha256:"), answer.stderr
    # again: nothing to copy
    assert "already in" in runner("install", env={"HOME": str(home)}, check=True).stdout
    # private, like everything under ~/.reflexion
    assert all(oct(p.stat().st_mode & 0o077) == "0o0" for p in model.rglob("*"))


@pytest.mark.model
def test_install_leaves_a_downloaded_production_model_in_use(tmp_path):
    home = tmp_path / "home"
    production = home / ".reflexion" / "models" / "Xenova" / "paraphrase-multilingual-MiniLM-L12-v2"
    shutil.copytree(FP32_MODEL_DIR, production)  # where errkb model download puts it
    out = runner("install", env={"HOME": str(home)}, check=True).stdout
    assert f"model: the production model Xenova/paraphrase-multilingual-MiniLM-L12-v2 ({production})" in out
    assert not (home / ".reflexion" / "lib" / "model").exists()
    report = doctor({"HOME": str(home)})
    assert f"at {production}: loads and embeds in " in report.stdout, report.stdout


# --- doctor reports the installed hooks' view ---------------------------------

@pytest.mark.model
def test_doctor_reports_what_the_installed_hooks_use(tmp_path):
    home, env = installed(tmp_path)
    report = doctor(env)
    assert report.returncode == 0, report.stdout
    hooks_runner = home / ".reflexion" / "bin" / "errkb"
    assert f"they run {hooks_runner} (errkb " in report.stdout
    [model] = lines(report, "ok   model")
    assert f"at {home / '.reflexion' / 'lib' / 'model'} (the test model errkb was built with" in model
    assert "loads and embeds in" in model
    assert f"ok   onnxruntime   {home / '.reflexion' / 'lib'}/libonnxruntime" in report.stdout


@pytest.mark.model
def test_doctor_says_when_the_installed_model_does_not_load_and_how_to_fix_it(tmp_path):
    home, env = installed(tmp_path)
    weights = home / ".reflexion" / "lib" / "model" / "model.onnx.data"
    weights.write_bytes(weights.read_bytes()[:1000])  # a download cut short
    manifest = weights.parent / "errkb-model.json"
    manifest.unlink()
    report = doctor(env)
    assert report.returncode == 1
    [model] = lines(report, "FAIL model")
    assert "does not load:" in model
    assert "remedy: errkb model download (gets it again), or errkb install from a build with the test model" \
        in report.stdout
    # the remedy works: install again from the build
    runner("install", env=env, check=True)
    assert lines(doctor(env), "ok   model")


@pytest.mark.model
def test_doctor_without_a_model_says_how_to_get_one(tmp_path):
    home, env = installed(tmp_path)
    shutil.rmtree(home / ".reflexion" / "lib" / "model")
    report = doctor(env)
    [model] = lines(report, "FAIL model")
    assert "no model found (looked in" in model and "text stages only" in model
    assert "remedy: errkb model download (online, once), or errkb install" in report.stdout


def test_doctor_names_an_installed_runner_of_another_version(tmp_path):
    home, env = installed(tmp_path)
    old = home / ".reflexion" / "bin" / "errkb"
    old.write_text("#!/bin/sh\necho errkb 0.0.1\n")
    report = doctor(env)
    [hooks] = lines(report, "FAIL hooks")
    assert f"they run {old} (errkb 0.0.1), this is errkb " in hooks
    assert f"remedy: {RUNNER} install" in report.stdout


# --- vectors carry their model ------------------------------------------------

@pytest.mark.model
def test_a_model_change_re_embeds_and_vectors_of_two_models_are_never_compared(tmp_path):
    db = tmp_path / "kb.db"
    int8, fp32 = {"ERRKB_MODEL": str(MODEL_DIR)}, {"ERRKB_MODEL": str(FP32_MODEL_DIR)}
    runner("--db", str(db), "record", "--error", "Cannot find module 'express'", "--resolution", "npm install",
           check=True)
    assert runner("--db", str(db), "embed", env=int8, check=True).stdout == "embedded 1, skipped 0\n"
    with connection(db) as conn:
        [(made_by,)] = conn.execute("SELECT model FROM vector_model").fetchall()
    assert made_by.startswith("all-MiniLM-L6-v2 int8 sha256:")
    # a wording only the vector stage finds
    query = "Module not found: Error: Can't resolve 'express'"
    thresholds = {"ERRKB_THRESHOLDS": "0.76,0.85"}
    assert "(vector)" in runner("--db", str(db), "search", query, env=int8 | thresholds, check=True).stdout
    # another model: the stage waits (and says why) rather than compare across models
    other = runner("--db", str(db), "search", query, env=fp32 | thresholds)
    assert other.returncode == 1
    hook_home = tmp_path / "home"
    runner("--db", str(db), "hook", "PostToolUseFailure", stdin=failure(error=query),
           env={"HOME": str(hook_home)} | fp32 | thresholds)
    log = (hook_home / ".reflexion" / "logs" / "hooks.log").read_text()
    assert f"search stage skipped: the vectors were made by {made_by}, the model in use is " \
           "all-MiniLM-L6-v2 float32 sha256:" in log
    # the job makes them again, with the new model, and says so
    job = runner("--db", str(db), "embed", env=fp32, check=True).stdout
    assert job == f"the model changed (the vectors were made by {made_by}): embedding everything again\n" \
                  "embedded 1, skipped 0\n"
    with connection(db) as conn:
        assert conn.execute("SELECT model FROM vector_model").fetchone()[0].startswith("all-MiniLM-L6-v2 float32")
    assert "(vector)" in runner("--db", str(db), "search", query, env=fp32 | thresholds, check=True).stdout


@pytest.mark.model
def test_a_model_of_another_width_gets_a_vector_table_of_its_width(tmp_path):
    db = tmp_path / "kb.db"
    runner("--db", str(db), "record", "--error", "Cannot find module 'express'", "--resolution", "npm install",
           check=True)
    with connection(db) as conn:  # as if an 8-wide model had made the vectors
        conn.executescript("INSERT INTO vector_model VALUES (1, 'eight sha256:0', 8);")
    subprocess.run(["sqlite3", "-cmd", f".load {DIST / 'errkb'}", str(db),
                    "DROP TABLE vec_error_kb; CREATE VIRTUAL TABLE vec_error_kb USING vec0("
                    "error_kb_id INTEGER PRIMARY KEY, embedding float[8]);"], check=True)
    out = runner("--db", str(db), "embed", env={"ERRKB_MODEL": str(MODEL_DIR)}, check=True).stdout
    assert out.endswith("embedded 1, skipped 0\n")
    with connection(db) as conn:
        ddl = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'vec_error_kb'").fetchone()[0]
        assert "float[384]" in ddl
        assert conn.execute("SELECT dimensions FROM vector_model").fetchone() == (384,)


# --- doctor tells the truth under faults ----------------------------------------

def test_a_data_folder_that_is_a_file_is_reported_and_hooks_log_elsewhere(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".reflexion").write_text("not a folder")
    env = {"HOME": str(home)}
    hook = runner("hook", "PostToolUseFailure", stdin=failure(), env=env)
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    fallback = home / ".local" / "state" / "errkb" / "hooks.log"
    assert "PostToolUseFailure" in fallback.read_text()
    assert oct(fallback.stat().st_mode & 0o777) == "0o600"
    report = doctor(env)
    assert report.returncode == 1
    assert f"FAIL data folder   {home / '.reflexion'} is not a folder: the hooks cannot store anything " \
           f"(they log their failures in {fallback})" in report.stdout
    assert f"remedy: mv {home / '.reflexion'} {home / '.reflexion'}.not-a-folder && errkb install" in report.stdout
    [failures] = lines(report, "FAIL hook failures")
    assert str(fallback) in failures


@pytest.mark.model
def test_a_malformed_config_and_errkb_switched_off_are_reported(tmp_path):
    home, env = installed(tmp_path)
    config = home / ".reflexion" / "config.json"
    config.write_text('{"language": "en",')
    report = doctor(env)
    assert report.returncode == 1
    assert f"FAIL config        {config} is not valid JSON (EOF while parsing" in report.stdout
    assert f"remedy: fix the file, or mv {config} {config}.bad" in report.stdout
    config.write_text('{"language": "en", "enabled": false}')
    report = doctor(env)
    assert report.returncode == 0, report.stdout  # off on purpose is not a failure
    assert f'off  enabled       "enabled": false in {config}: every hook does nothing' in report.stdout


def test_index_damage_is_found_and_only_damage_is_moved_aside(tmp_path):
    home, env = installed(tmp_path)
    for n in range(30):
        runner("hook", "PostToolUseFailure", stdin=failure(session=f"s{n}", error=f"Error {n}: boom {n}"), env=env)
    db = home / ".reflexion" / "data" / "reflexion.db"
    # Declare an index's columns in another order than its pages hold them:
    # its entries no longer match the table's rows. SQLite's quick_check
    # does not look; integrity_check does.
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_schema SET sql = 'CREATE INDEX idx_events_session ON events(ts, session_id)' "
                     "WHERE name = 'idx_events_session'")
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA quick_check").fetchone() == ("ok",)
    report = doctor(env)
    [line] = lines(report, "FAIL database")
    assert f"{db} is damaged: " in line
    assert f"remedy: move it aside and let the next hook start a new one, keeping the old file: mv {db} " \
           in report.stdout


def test_the_integrity_check_keeps_to_its_time_budget(tmp_path):
    home, env = installed(tmp_path)
    for n in range(40):
        runner("hook", "PostToolUseFailure", stdin=failure(session=f"s{n}", error=f"Error {n}: boom {n}"), env=env)
    report = doctor(env | {"ERRKB_DOCTOR_CHECK_MS": "0"})
    [line] = lines(report, "ok   database")
    assert "integrity check stopped after 0 ms, nothing wrong found so far" in line
    assert "integrity ok in" in lines(doctor(env), "ok   database")[0]


def test_a_schema_newer_than_this_errkb_is_not_ok(tmp_path):
    home, env = installed(tmp_path)
    runner("hook", "PostToolUseFailure", stdin=failure(), env=env)
    db = home / ".reflexion" / "data" / "reflexion.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    report = doctor(env)
    [line] = lines(report, "FAIL database")
    assert f"{db} has schema 99, newer than this errkb knows (" in line
    assert "move it aside" not in report.stdout


def test_settings_backups_never_overwrite_each_other(tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    original = json.dumps({"model": "opus"})
    (home / ".claude" / "settings.json").write_text(original)
    env = {"HOME": str(home)}
    for command in ("install", "uninstall", "install", "uninstall"):  # well within one second
        runner(command, env=env, check=True)
    made = sorted((home / ".claude").glob("settings.json.*.bak"))
    assert len(made) == 4 and len({p.name for p in made}) == 4
    assert made[0].read_text() == original


def test_a_journal_left_read_only_gets_its_private_mode_back(tmp_path):
    """SQLite makes -wal and -shm with the database's mode: made while the
    database was read-only, they would keep writes failing after the
    database is writable again."""
    home, env = installed(tmp_path)
    runner("hook", "PostToolUseFailure", stdin=failure(), env=env)
    db = home / ".reflexion" / "data" / "reflexion.db"
    shm = Path(f"{db}-shm")
    assert shm.exists()
    shm.chmod(0o400)
    runner("hook", "PostToolUseFailure", stdin=failure(session="s2"), env=env)
    assert oct(shm.stat().st_mode & 0o777) == "0o600"


@pytest.fixture
def unprivileged():
    """(command prefix, a HOME folder) to run errkb as an unprivileged user:
    root may write to read-only files, so read-only faults need another
    user. As root: `nobody`, through setpriv, in a folder of its own."""
    if not IS_ROOT:
        home = folder_for_others("errkb-home-")
        yield [], home
        shutil.rmtree(home, ignore_errors=True)
        return
    if subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "true"],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot drop privileges here (setpriv)")
    for parent in RUNNER.parents:
        if parent.stat().st_mode & 0o001 == 0:
            pytest.skip(f"{parent} is not searchable by other users, so nobody cannot run {RUNNER}")
    top = folder_for_others("errkb-nobody-")  # pytest's own folder is root's alone
    top.chmod(0o755)
    home = top / "home"
    home.mkdir()
    os.chown(home, NOBODY, NOBODY)
    yield ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"], home
    shutil.rmtree(top, ignore_errors=True)


def test_a_read_only_database_is_reported_and_the_remedy_works(unprivileged):
    prefix, home = unprivileged
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}

    def hook(session):
        return subprocess.run([*prefix, str(RUNNER), "hook", "PostToolUseFailure"], input=failure(session=session),
                              capture_output=True, text=True, env=env, timeout=60)

    hook("s1")
    db = home / ".reflexion" / "data" / "reflexion.db"
    db.chmod(0o400)
    assert hook("s2").returncode == 0
    report = doctor(env, *prefix)
    assert report.returncode == 1
    [line] = lines(report, "FAIL database")
    assert "read-only: every hook fails to write" in line
    assert f"remedy: chmod 600 {db}" in report.stdout
    assert "move it aside" not in report.stdout
    db.chmod(0o600)  # the remedy, for the database alone
    hook("s3")
    with connection(db) as conn:
        sessions = [s for (s,) in conn.execute("SELECT session_id FROM events WHERE type = 'tool_error' ORDER BY id")]
    assert sessions == ["s1", "s3"]


@pytest.fixture
def full_disk(tmp_path):
    """A 1 MB file system (tmpfs), mounted as root; skipped elsewhere."""
    if not IS_ROOT:
        pytest.skip("mounting a small file system needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("tmpfs cannot be mounted here")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def fill(mount):
    with open(mount / "filler", "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
        except OSError:
            pass


def test_a_full_disk_is_named_and_a_healthy_database_is_not_called_damaged(tmp_path, full_disk):
    home, env = installed(tmp_path)
    db = full_disk / "reflexion.db"
    env = env | {"ERRKB_DB": str(db)}
    runner("hook", "PostToolUseFailure", stdin=failure(), env=env)
    assert db.exists()
    fill(full_disk)
    hook = runner("hook", "PostToolUseFailure", stdin=failure(session="s2", error="TypeError: x is undefined"), env=env)
    assert (hook.returncode, hook.stdout) == (0, "")
    report = doctor(env)
    assert report.returncode == 1
    assert f"FAIL disk          full: " in report.stdout and f"on the disk holding {full_disk}" in report.stdout
    [failures] = lines(report, "FAIL hook failures")
    assert "disk full" in failures
    assert f"remedy: disk full: free some space on the disk holding {full_disk}" in report.stdout
    assert "move it aside" not in report.stdout
    # without its -shm (a reboot, a cleaner), reading it needs room too:
    # still a full disk, not a damaged file
    Path(f"{db}-shm").unlink()
    report = doctor(env)
    assert "damaged" not in report.stdout and "move it aside" not in report.stdout
    (full_disk / "filler").unlink()
    runner("hook", "PostToolUseFailure", stdin=failure(session="s3"), env=env)
    with connection(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM events WHERE session_id IN ('s1', 's3')").fetchone() == (2,)


# --- errkb learn beside live sessions ----------------------------------------

def test_learn_beside_eight_hook_loops_loses_no_event(tmp_path):
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from learn_beside_hooks import run
    from transcript_corpus import generate
    generate(tmp_path / "projects", 6_000_000)
    (tmp_path / "home").mkdir()
    result = run(RUNNER, tmp_path / "kb.db", tmp_path / "projects", tmp_path / "home", loops=8)
    assert result["learn_exit"] == 0, result["learn_stderr"]
    assert result["hooks"] > 8 and result["lost"] == 0 and result["failed"] == 0, result
    assert not (tmp_path / "home" / ".reflexion" / "logs" / "hooks.log").exists()


def transcript_line(record_type, content, n):
    return json.dumps({"type": record_type, "sessionId": "s-hostile", "cwd": "/work/app", "uuid": f"u{n}",
                       "timestamp": f"2026-01-01T00:00:{n:02d}.000Z", "message": {"role": record_type,
                                                                              "content": content}})


def call(n, tool_input, error=None):
    use = transcript_line("assistant", [{"type": "tool_use", "id": f"toolu_h{n}", "name": "Bash",
                                         "input": tool_input}], 2 * n)
    result = transcript_line("user", [{"type": "tool_result", "tool_use_id": f"toolu_h{n}", "is_error": bool(error),
                                       "content": error or "ok"}], 2 * n + 1)
    return [use, result]


def test_learn_skips_what_it_cannot_read_says_so_and_imports_the_rest(unprivileged):
    prefix, home = unprivileged
    projects = home / "projects"
    projects.mkdir()
    # a tool_input nested 1001 deep: past any JSON parser's limit
    deep = [line.replace('"DEEP"', '{"a":' * 1001 + '"make"' + '}' * 1001) for line in call(2, "DEEP", "boom")]
    lines = [*call(1, {"command": "python3 app.py"}, "ModuleNotFoundError: No module named 'yaml'"), *deep,
             *call(3, {"command": "pip install pyyaml"}), *call(4, {"command": "python3 app.py"})]
    (projects / "good.jsonl").write_text("\n".join(lines) + "\n")
    locked = projects / "locked.jsonl"  # a transcript of `sudo claude`: root's alone
    locked.write_text("\n".join(call(9, {"command": "ls"})) + "\n")
    if prefix:
        for path in (projects, projects / "good.jsonl"):
            os.chown(path, NOBODY, NOBODY)
        locked.chmod(0o600)  # root's, unreadable by nobody
    else:
        locked.chmod(0o000)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([*prefix, str(RUNNER), "learn", str(projects)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    # one line of warning for each thing skipped
    assert proc.stderr.splitlines() == [
        f"errkb learn: skipped tool call toolu_h2 of {projects / 'good.jsonl'}: malformed JSON: Error code 1: "
        "SQL logic error", f"errkb learn: skipped {locked}: Permission denied (os error 13)"]
    assert "1 file could not be read; 1 call could not be stored" in proc.stdout
    assert "1 fix learned" in proc.stdout
    # nothing readable at all: an error
    nothing = subprocess.run([*prefix, str(RUNNER), "learn", str(locked)], capture_output=True, text=True, env=env)
    assert nothing.returncode != 0 and "the transcript file could not be read" in nothing.stderr


def test_learn_memory_is_bounded_by_the_longest_line(tmp_path):
    projects = tmp_path / "projects"
    projects.mkdir()
    huge = "x" * 60_000_000  # one 60 MB tool output
    lines = [*call(1, {"command": "cat big.log"}), *call(2, {"command": "python3 app.py"}, "Error: " + huge)]
    (projects / "s.jsonl").write_text("\n".join(lines) + "\n")
    code, _, err, rss = peak_rss_kib([RUNNER, "--db", tmp_path / "kb.db", "learn", projects],
                                     env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert code == 0, err
    assert rss < 4 * 60_000, f"peak RSS {rss} KiB for a 60 MB line"
