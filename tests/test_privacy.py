"""Nothing secret is stored, logged or shown, and the data is the user's
alone: the installed hooks, run as Claude Code runs them (through a shell,
under umask 022), on a session full of secrets, then a second session that
gets advice; every file under ~/.reflexion/data and logs and every hook
output is searched for every secret."""
import json
import os
import random
import stat
import string
import subprocess

import pytest

from conftest import SCHEMA_VERSION, RUNNER, connection, runner

rng = random.Random()  # fresh secrets every run: nothing to tune on


def rand(chars, n):
    return "".join(rng.choice(chars) for _ in range(n))


ALNUM = string.ascii_letters + string.digits


def make_secrets():
    return {
        "github": "ghp_" + rand(ALNUM, 36),
        "stripe": "sk_live_" + rand(ALNUM, 32),
        "aws_secret": rand(ALNUM + "+/", 40),
        "password": rand(ALNUM, 8) + "7!x" + rand(ALNUM, 4),
        "slack": f"xoxb-{rand(string.digits, 12)}-{rand(string.digits, 12)}-{rand(ALNUM, 24)}",
        "edit_token": "glpat-" + rand(ALNUM, 20),
    }


def run_installed(home, event, body, cwd):
    """The command install wrote into settings.json, through a shell, with
    the usual umask; returns stdout."""
    command = f"umask 022; ~/.reflexion/bin/errkb hook {event}"
    proc = subprocess.run(["sh", "-c", command], input=json.dumps(body), text=True, capture_output=True, cwd=cwd,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0 and proc.stderr == ""
    return proc.stdout


def leaks(secret, blob):
    """Any 8 consecutive characters of the secret in `blob` (bytes)."""
    data = blob if isinstance(blob, bytes) else blob.encode()
    return [secret[i:i + 8] for i in range(len(secret) - 7) if secret[i:i + 8].encode() in data]


@pytest.fixture
def installed(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run(["sh", "-c", f"umask 022; {RUNNER} install"],
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return home


def test_secrets_reach_no_file_log_or_output(installed, tmp_path):
    home, s = installed, make_secrets()
    base = {"transcript_path": "/tmp/t.jsonl", "cwd": "/work/shop", "permission_mode": "default"}
    outputs = []

    def tool(event, session, name, tool_input, **extra):
        out = run_installed(home, event, {**base, "session_id": session, "hook_event_name": event, "tool_name": name,
                                          "tool_input": tool_input, "tool_use_id": "toolu_1", **extra}, tmp_path)
        outputs.append(out)
        return out

    deploy = f"STRIPE_KEY={s['stripe']} node deploy.js --token {s['github']}"
    error = (f"Error: Request failed with status code 401 for {s['github']}\n"
             f"    at deploy (/work/shop/deploy.js:12:9)\n"
             f"  config: {{ aws_secret_access_key: '{s['aws_secret']}', url: 'postgres://app:{s['password']}@db/shop' }}\n"
             f"  slack: {s['slack']}")
    # session one: the failure, an edit holding a secret, the retry that works
    tool("PostToolUseFailure", "one", "Bash", {"command": deploy}, error=error)
    tool("PostToolUse", "one", "Edit", {"file_path": "/work/shop/deploy.js",
                                        "old_string": "const token = process.env.TOKEN",
                                        "new_string": f"const token = '{s['edit_token']}'"},
         tool_response={"filePath": "/work/shop/deploy.js", "newString": f"const token = '{s['edit_token']}'"})
    tool("PostToolUse", "one", "Bash", {"command": deploy}, tool_response={"stdout": "deployed", "stderr": ""})
    tool("SubagentStart", "one", None, None, agent_id="a1", agent_type="executor")
    # session two: the same failure gets advice, and the warnings run
    told = tool("PostToolUseFailure", "two", "Bash", {"command": deploy}, error=error)
    tool("PreToolUse", "two", "Edit", {"file_path": "/work/shop/deploy.js", "old_string": "a", "new_string": "b"})
    tool("PreToolUse", "two", "Bash", {"command": deploy})
    tool("SubagentStart", "two", None, None, agent_id="a2", agent_type="executor")
    run_installed(home, "PostToolUse", "not json", tmp_path)  # a failure, so the log has lines

    # every file as the hooks left it (the write-ahead log included)
    files = [p for part in ("data", "logs") for p in (home / ".reflexion" / part).rglob("*") if p.is_file()]
    assert {"reflexion.db", "reflexion.db-wal", "hooks.log"} <= {p.name for p in files}
    for name, secret in s.items():
        for path in files:
            assert not leaks(secret, path.read_bytes()), f"{name} in {path}"
        for out in outputs:
            assert not leaks(secret, out), f"{name} in a hook's output: {out}"

    # the test means something: the fix was learned and advised
    assert "[Reflexion " in told and "[REDACTED]" in told
    with connection(home / ".reflexion" / "data" / "reflexion.db") as conn:
        assert conn.execute("SELECT count(*) FROM error_kb WHERE resolution IS NOT NULL").fetchone() == (1,)


def test_data_is_private_whatever_the_umask(installed, tmp_path):
    run_installed(installed, "PostToolUse", {"session_id": "s", "cwd": "/w", "tool_name": "Bash",
                                             "tool_input": {"command": "ls"}}, tmp_path)
    run_installed(installed, "PostToolUse", "not json", tmp_path)
    root = installed / ".reflexion"
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode & 0o077 == 0, f"{path} is {oct(mode)}"
    for name in ["reflexion.db", "reflexion.db-wal", "reflexion.db-shm"]:
        assert stat.S_IMODE((root / "data" / name).stat().st_mode) == 0o600
    assert stat.S_IMODE((root / "logs" / "hooks.log").stat().st_mode) == 0o600
    assert stat.S_IMODE((root / "data").stat().st_mode) == 0o700


def test_install_and_doctor_fix_an_older_installation(installed):
    root = installed / ".reflexion"
    (root / "data").mkdir(exist_ok=True)
    old = root / "data" / "reflexion.db"
    with connection(old) as conn:
        conn.execute("CREATE TABLE t (x)")
    os.chmod(root, 0o755)
    os.chmod(root / "data", 0o755)
    os.chmod(old, 0o644)
    out = runner("doctor", env={"HOME": str(installed)}).stdout
    assert "were readable by others: made private" in out
    assert stat.S_IMODE(old.stat().st_mode) == 0o600 and stat.S_IMODE(root.stat().st_mode) == 0o700
    os.chmod(old, 0o644)
    assert "private to you" in runner("install", env={"HOME": str(installed)}, check=True).stdout
    assert stat.S_IMODE(old.stat().st_mode) == 0o600


def test_secrets_already_stored_are_redacted_on_upgrade(tmp_path):
    """A knowledge base written before redaction (schema 4) is cleaned when
    errkb first opens it for writing."""
    token = "ghp_" + rand(ALNUM, 36)
    db = tmp_path / "old.db"
    runner("--db", str(db), "init", check=True)
    with connection(db) as conn:
        conn.execute("INSERT INTO events (type, ts, session_id, data) VALUES ('tool_error', '2026-01-01T00:00:00.000Z',"
                     " 's', json_object('error', ?, 'errorRaw', ?))", (f"bad token {token}", f"bad token {token}"))
        conn.execute("INSERT INTO error_kb (ts, error_normalized, error_raw, resolution) VALUES "
                     "('2026-01-01T00:00:00.000Z', ?, ?, ?)",
                     (f"bad token {token}", f"bad token {token}", json.dumps({"command": f"gh auth --token {token}"})))
        conn.execute("PRAGMA user_version = 4")
    runner("--db", str(db), "init", check=True)
    with connection(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        rows = json.dumps(conn.execute("SELECT * FROM events").fetchall() + conn.execute("SELECT * FROM error_kb").fetchall())
    assert token not in rows and "[REDACTED]" in rows
