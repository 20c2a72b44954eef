"""errkb and OpenAI's Codex CLI without the client: install, uninstall and
doctor on a throwaway CODEX_HOME; Codex's payloads (as docs/CODEX.md
records them from the real client 0.171.0) through `errkb hook --agent
codex`; and hostile payloads and session files, which must neither crash
a hook nor make it slow."""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import RUNNER, connection, runner

MINE = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}]}}
MY_CONFIG = 'model = "gpt-5.5"  # my model\n\n[projects."/w/app"]\ntrust_level = "trusted"\n'


@pytest.fixture
def home(tmp_path):
    codex_home = tmp_path / ".codex"
    codex_home.mkdir()
    (codex_home / "hooks.json").write_text(json.dumps(MINE, indent=2))
    (codex_home / "config.toml").write_text(MY_CONFIG)
    return tmp_path


def env_of(home):
    return {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}


def run(home, *args, check=True):
    return runner(*args, env=env_of(home), check=check)


def hooks_json(home):
    return json.loads((home / ".codex" / "hooks.json").read_text())


def config(home):
    return (home / ".codex" / "config.toml").read_text()


def trust_entries(home):
    import tomllib
    return tomllib.loads(config(home)).get("hooks", {}).get("state", {})


def test_install_merges_trusts_backs_up_and_is_idempotent(home):
    dry = run(home, "install", "--agent", "codex", "--dry-run").stdout
    assert '+            "command": "~/.reflexion/bin/errkb hook --agent codex PostToolUse",' in dry
    assert "would trust errkb's 4 Codex hooks" in dry
    assert hooks_json(home) == MINE and config(home) == MY_CONFIG

    out = run(home, "install", "--agent", "codex").stdout
    assert "trusted errkb's 4 Codex hooks" in out and "without asking you to review each" in out
    hooks = hooks_json(home)["hooks"]
    # the user's hook stays first; errkb's come after it
    assert hooks["PostToolUse"][0] == MINE["hooks"]["PostToolUse"][0]
    assert hooks["PostToolUse"][1]["hooks"][0]["command"] == "~/.reflexion/bin/errkb hook --agent codex PostToolUse"
    assert sorted(hooks) == ["PostToolUse", "PreToolUse", "SessionEnd", "SubagentStart"]
    # the user's settings and comment kept as written; errkb's hooks trusted, the user's not
    assert config(home).startswith(MY_CONFIG)
    source = str((home / ".codex" / "hooks.json").resolve())
    state = trust_entries(home)
    assert sorted(state) == sorted(f"{source}:{e}:{g}:0" for e, g in [("pre_tool_use", 0), ("post_tool_use", 1),
                                                                       ("subagent_start", 0), ("session_end", 0)])
    assert all(v["trusted_hash"].startswith("sha256:") for v in state.values())
    backups = sorted((home / ".codex").glob("*.bak"))
    assert [b.name.split(".")[0] for b in backups] == ["config", "hooks"]

    again = run(home, "install", "--agent", "codex").stdout
    assert "hooks.json: already up to date" in again and "config.toml: already up to date" in again
    assert len(sorted((home / ".codex").glob("*.bak"))) == 2


def test_uninstall_removes_only_errkbs(home):
    run(home, "install", "--agent", "codex")
    # the user turns one of errkb's hooks off, and trusts their own
    text = config(home).replace("post_tool_use:1:0\"]\n", "post_tool_use:1:0\"]\nenabled = false\n")
    (home / ".codex" / "config.toml").write_text(text + '\n[hooks.state."mine:stop:0:0"]\ntrusted_hash = "sha256:abc"\n')
    assert "off" in [l.split()[0] for l in run(home, "doctor", check=False).stdout.splitlines()
                     if "codex hooks" in l]
    run(home, "install", "--agent", "codex")
    assert "enabled = false" in config(home)  # a choice of the user's stays
    out = run(home, "uninstall", "--agent", "codex").stdout
    assert "updated" in out
    assert hooks_json(home) == MINE
    assert list(trust_entries(home)) == ["mine:stop:0:0"]
    assert config(home).startswith(MY_CONFIG)


def test_install_finds_the_agents_that_are_here(tmp_path):
    codex_only = tmp_path / "a"
    (codex_only / ".codex").mkdir(parents=True)
    out = runner("install", env={"HOME": str(codex_only), "PATH": "/usr/bin:/bin"}, check=True).stdout
    assert f"setting up errkb for: Codex ({codex_only / '.codex'})" in out
    assert (codex_only / ".codex" / "hooks.json").exists() and not (codex_only / ".claude").exists()
    both = tmp_path / "b"
    (both / ".codex").mkdir(parents=True)
    (both / ".claude").mkdir()
    out = runner("install", env={"HOME": str(both), "PATH": "/usr/bin:/bin"}, check=True).stdout
    assert "setting up errkb for: Claude Code" in out and ", Codex (" in out
    assert (both / ".claude" / "settings.json").exists() and (both / ".codex" / "hooks.json").exists()
    # uninstall takes both out
    runner("uninstall", env={"HOME": str(both), "PATH": "/usr/bin:/bin"}, check=True)
    assert "errkb" not in (both / ".claude" / "settings.json").read_text()
    assert "errkb" not in (both / ".codex" / "hooks.json").read_text() + (both / ".codex" / "config.toml").read_text()
    none = tmp_path / "c"
    none.mkdir()
    out = runner("install", env={"HOME": str(none), "PATH": "/usr/bin:/bin"}, check=True).stdout
    assert "no agent found" in out and (none / ".claude" / "settings.json").exists()


def test_a_linked_codex_home_is_named_as_codex_names_it(tmp_path):
    real = tmp_path / "real"
    (real / ".codex").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    home = tmp_path / "link"
    runner("install", "--agent", "codex", env=env_of(home), check=True)
    assert all(key.startswith(str(real / ".codex" / "hooks.json")) for key in trust_entries(home))


def test_doctor_tells_untrusted_and_off_hooks(home):
    run(home, "install", "--agent", "codex")
    [line] = [l for l in run(home, "doctor", check=False).stdout.splitlines() if "codex hooks" in l]
    assert line.startswith("ok   codex hooks   all 4 installed in") and ", trusted; they run" in line
    # a hook moved (the user put a group before errkb's): its trust no longer holds
    hooks = hooks_json(home)
    hooks["hooks"]["PreToolUse"].insert(0, {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]})
    (home / ".codex" / "hooks.json").write_text(json.dumps(hooks))
    report = run(home, "doctor", check=False)
    assert report.returncode == 1
    assert "FAIL codex hooks   all 4 installed in" in report.stdout and "not trusted in" in report.stdout
    assert "not trusted in" in report.stdout and ": PreToolUse (Codex skips" in report.stdout
    assert "remedy:" in report.stdout and "install --agent codex" in report.stdout
    run(home, "install", "--agent", "codex")  # the remedy
    assert run(home, "doctor", check=False).stdout.count("ok   codex hooks") == 1
    # hooks turned off in Codex
    (home / ".codex" / "config.toml").write_text(config(home) + "\n[features]\nhooks = false\n")
    [line] = [l for l in run(home, "doctor", check=False).stdout.splitlines() if "codex hooks" in l]
    assert line.startswith("off  codex hooks   hooks are turned off")


def test_doctor_without_codex_says_so(tmp_path):
    (tmp_path / ".claude").mkdir()
    report = runner("doctor", env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}).stdout
    assert "off  codex hooks   Codex is not on this machine" in report


def test_with_errkbs_codex_plugin_enabled_hooks_json_gets_none(home):
    run(home, "install", "--agent", "codex")
    (home / ".codex" / "config.toml").write_text(config(home) + '\n[plugins."errkb@errkb-marketplace"]\nenabled = true\n')
    out = run(home, "install", "--agent", "codex").stdout
    assert "errkb's Codex plugin is enabled (errkb@errkb-marketplace)" in out
    assert hooks_json(home) == MINE
    assert sorted(trust_entries(home)) == sorted(
        f"errkb@errkb-marketplace:hooks/codex.json:{e}:0:0"
        for e in ["pre_tool_use", "post_tool_use", "subagent_start", "session_end"])
    out = run(home, "uninstall", "--agent", "codex").stdout
    assert "errkb's Codex plugin (errkb@errkb-marketplace) stays installed, its hooks no longer trusted" in out
    assert trust_entries(home) == {}


# --- payloads, as Codex sends them ---------------------------------------------

def rollout_line(call_id, exit_code, cwd):
    return json.dumps({"timestamp": "2026-11-27T14:20:57.450Z", "ordinal": 9, "type": "event_msg",
                       "payload": {"type": "item_completed", "item": {
                           "type": "CommandExecution", "id": call_id, "command": ["/bin/bash", "-lc", "x"],
                           "cwd": f"file://{cwd}", "status": "completed" if exit_code == 0 else "failed",
                           "aggregated_output": "…", "exit_code": exit_code}}}) + "\n"


@pytest.fixture
def session(tmp_path):
    """A Codex session: its rollout file, and a payload maker."""
    project = tmp_path / "project"
    project.mkdir()
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "sess-1"}}) + "\n")

    def payload(event, **fields):
        return {"session_id": "019a0000-0000-7000-8000-000000000001", "turn_id": "019a0000-turn",
                "transcript_path": str(rollout), "cwd": str(project), "hook_event_name": event,
                "model": "gpt-5.5", "permission_mode": "bypassPermissions", **fields}
    return {"home": tmp_path / "home", "project": project, "rollout": rollout, "payload": payload}


def hook(session, event, body, timeout=10):
    started = time.perf_counter()
    proc = subprocess.run([str(RUNNER), "hook", "--agent", "codex", event], input=json.dumps(body).encode()
                          if not isinstance(body, bytes) else body, capture_output=True, timeout=timeout,
                          env={"HOME": str(session["home"]), "PATH": "/usr/bin:/bin", "ERRKB_LANGUAGE": "en"})
    assert proc.returncode == 0 and proc.stderr == b""
    return proc.stdout.decode(), time.perf_counter() - started


def shell_call(session, call_id, command, exit_code, output, workdir=None):
    with open(session["rollout"], "a") as f:
        f.write(rollout_line(call_id, exit_code, workdir or session["project"]))
    return hook(session, "PostToolUse", session["payload"](
        "PostToolUse", tool_name="Bash", tool_input={"command": command}, tool_response=output, tool_use_id=call_id))


def events(session):
    db = session["home"] / ".reflexion" / "data" / "reflexion.db"
    if not db.exists():
        return []
    with connection(db) as conn:
        return conn.execute("SELECT type, data FROM events ORDER BY id").fetchall()


def log_of(session):
    log = session["home"] / ".reflexion" / "logs" / "hooks.log"
    return log.read_text() if log.exists() else ""


def test_a_failed_command_a_patch_and_the_retry(session):
    out, _ = shell_call(session, "s_1", "python3 report.py", 1,
                        "Traceback (most recent call last):\n  File \"report.py\", line 2, in <module>\n"
                        "TypeError: can only concatenate str (not \"int\") to str\n")
    assert out == ""
    patch = ("*** Begin Patch\n*** Update File: report.py\n@@\n-print('total: ' + total)\n"
             "+print('total: ' + str(total))\n*** Add File: notes.txt\n+todo\n*** End Patch\n")
    out, _ = hook(session, "PostToolUse", session["payload"](
        "PostToolUse", tool_name="apply_patch", tool_input={"command": patch}, tool_use_id="s_2",
        tool_response="Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM report.py\n"))
    shell_call(session, "s_3", "python3 report.py", 0, "total: 3\n", workdir=session["project"] / "sub")
    stored = [(t, json.loads(d)) for t, d in events(session)]
    assert [(t, d["tool"], d["toolUseId"], d["agent"]) for t, d in stored] == [
        ("tool_error", "Bash", "s_1", "codex"), ("tool_use", "Edit", "s_2", "codex"),
        ("tool_use", "Write", "s_2:2", "codex"), ("tool_use", "Bash", "s_3", "codex")]
    # the tool's own output: the harness's exit code is no part of an error
    assert stored[0][1]["errorRaw"].startswith("Traceback (most recent call last)")
    assert stored[0][1]["turnId"] == "019a0000-turn"
    # the folder it ran in, as Claude Code would have written it
    assert stored[3][1]["meta"]["line"] == "cd sub && python3 report.py"
    with connection(session["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        [resolution] = conn.execute("SELECT resolution FROM fixes").fetchone()
    assert json.loads(resolution)["edits"][0] == {"file": "report.py", "before": "print('total: ' + total)",
                                                   "after": "print('total: ' + str(total))"}
    assert log_of(session) == ""


def test_advice_is_codexs_answer(session):
    shell_call(session, "a_1", "no-such-tool --version", 127, "/bin/bash: line 1: no-such-tool: command not found\n")
    shell_call(session, "a_2", "npm install -g no-such-tool", 0, "added 1 package\n")
    shell_call(session, "a_3", "no-such-tool --version", 0, "1.0\n")
    # a new session, the same failure
    session["payload"] = (lambda make: lambda event, **f: {**make(event, **f), "session_id": "other"})(session["payload"])
    out, _ = shell_call(session, "b_1", "no-such-tool --version", 127,
                        "/bin/bash: line 1: no-such-tool: command not found\n")
    answer = json.loads(out)
    assert answer["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "ran: npm install -g no-such-tool" in answer["hookSpecificOutput"]["additionalContext"]


def test_mcp_tools_pass_through_by_name(session):
    hook(session, "PostToolUse", session["payload"](
        "PostToolUse", tool_name="mcp__probe__lookup", tool_input={"word": "apple"}, tool_use_id="x_1",
        tool_response={"content": [{"type": "text", "text": "found apple"}]}))
    [(kind, data)] = events(session)
    assert kind == "tool_use" and json.loads(data)["tool"] == "mcp__probe__lookup"


def test_a_command_whose_end_is_unknown_is_not_stored(session):
    out, _ = hook(session, "PostToolUse", session["payload"](
        "PostToolUse", tool_name="Bash", tool_input={"command": "make"}, tool_response="ok", tool_use_id="u_1"))
    assert out == "" and events(session) == []
    assert "command u_1 not stored: its end is not in the last 4 MB of the session file" in log_of(session)


# --- hostile input ----------------------------------------------------------------

def test_hostile_session_files_neither_hang_nor_crash(session, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:  # 1 GB, sparse: only its tail is ever read
        f.truncate(1 << 30)
    one_line = tmp_path / "one-line.jsonl"
    one_line.write_text('{"type":"event_msg","payload":{"x":"' + "h_1" * 3_000_000 + '"}}')
    forged = tmp_path / "forged.jsonl"
    forged.write_text('{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution",'
                      '"id":"h_1","exit_code":"NaN","status":[1]}}}\n' + "\x00\xff{[" * 1000 + "\n")
    for path in [fifo, big, one_line, forged, tmp_path, Path("/dev/zero"), Path("/proc/self/mem"), "relative.jsonl",
                 "", None, 7, {"a": 1}]:
        body = session["payload"]("PostToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_response="x",
                                  tool_use_id="h_1", transcript_path=path if not isinstance(path, Path) else str(path))
        out, took = hook(session, "PostToolUse", body, timeout=10)
        assert out == "" and took < 2, (path, took)
    assert events(session) == []


def test_hostile_payloads_neither_hang_nor_crash(session):
    nested = b'{"tool_name":"apply_patch","tool_input":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    huge_patch = "*** Begin Patch\n*** Update File: x\n" + "@@\n-a\n+b\n" * 200_000 + "*** End Patch\n"
    for event, body in [
        ("PostToolUse", b"not json"),
        ("PostToolUse", b"\xff\xfe\x00"),
        ("PostToolUse", nested),
        ("PostToolUse", json.dumps(["a list"]).encode()),
        ("PostToolUse", session["payload"]("PostToolUse", tool_name="apply_patch", tool_use_id="p_1",
                                           tool_input={"command": huge_patch}, tool_response="Exit code: 0\n")),
        ("PostToolUse", session["payload"]("PostToolUse", tool_name="apply_patch", tool_use_id="p_2",
                                           tool_input={"command": 42}, tool_response=None)),
        ("PostToolUse", session["payload"]("PostToolUse", tool_name="Bash", tool_use_id='x"); DROP TABLE events; --',
                                           tool_input="rm -rf /", tool_response={"x": 1})),
        ("PreToolUse", session["payload"]("PreToolUse", tool_name="Bash", tool_input={"command": "ls"},
                                          tool_use_id="q_1")),
        ("SessionEnd", {"session_id": "s", "transcript_path": "/dev/zero", "hook_event_name": "SessionEnd"}),
        ("PostToolUseFailure", session["payload"]("PostToolUseFailure", error="x")),
        ("NoSuchEvent", {}),
    ]:
        out, took = hook(session, event, body if isinstance(body, bytes) else json.dumps(body).encode())
        assert took < 3, (event, took)
        assert out == "" or json.loads(out)["hookSpecificOutput"]["hookEventName"] == event
    # a patch is at most 32 edits
    with connection(session["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        assert conn.execute("SELECT count(*) FROM events WHERE data ->> '$.toolUseId' LIKE 'p_1%'").fetchone()[0] == 32


def test_secrets_and_home_names_are_not_stored(session):
    secret = "AKIA" + "ZXCVBNMASDFGHJKL"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    session["payload"] = (lambda make: lambda event, **f: {**make(event, **f), "cwd": "/home/alice/shop"})(
        session["payload"])
    shell_call(session, "k_1", f"curl -H 'Authorization: token {token}' https://api.example.com", 22,
               f"curl: (22) The requested URL returned error: 401 for key {secret}\n", workdir="/home/alice/shop")
    text = json.dumps(events(session))
    assert secret not in text and token not in text and "alice" not in text


# --- errkb learn on Codex's session files --------------------------------------------

CORPUS = Path(__file__).resolve().parent / "fixtures" / "codex_sessions"
CLAUDE_CORPUS = Path(__file__).resolve().parent / "fixtures" / "real_sessions"


def gunzip_into(gz, dest):
    import gzip
    import shutil
    dest.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(gz, "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out)


def test_learn_reads_every_codex_version_beside_claude_code(tmp_path):
    """~/.codex/sessions (and archived_sessions) by default, beside
    ~/.claude/projects, each file's format told by its first record; every
    layout of the corpus read; again, nothing new; no user name stored."""
    home = tmp_path / "home"
    files = sorted(CORPUS.rglob("*.jsonl.gz"))
    for n, gz in enumerate(files):
        folder = "archived_sessions" if "archived_sessions" in gz.relative_to(CORPUS).parts else "sessions"
        gunzip_into(gz, home / ".codex" / folder / f"{n:02d}" / gz.name[:-3])
    claude = sorted(CLAUDE_CORPUS.rglob("*.jsonl.gz"))[0]
    gunzip_into(claude, home / ".claude" / "projects" / "-work-x" / claude.name[:-3])
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    out = runner("learn", env=env, check=True, timeout=600).stdout
    assert f"read {len(files) + 1} transcript files" in out
    db = home / ".reflexion" / "data" / "reflexion.db"
    with connection(db) as conn:
        by_agent = dict(conn.execute("SELECT coalesce(data ->> '$.agent', 'claude'), count(*) FROM events "
                                     "GROUP BY 1").fetchall())
        versions = conn.execute("SELECT count(DISTINCT session_id) FROM events WHERE data ->> '$.agent' = 'codex'"
                                ).fetchone()[0]
        learned = conn.execute("SELECT count(*) FROM learned_errors").fetchone()[0]
        text = "\n".join(str(row) for table in ("events", "transcript_imports", "fixes", "error_kb")
                         for row in conn.execute(f"SELECT * FROM {table}"))
    assert by_agent["codex"] > 3000 and by_agent["claude"] > 0
    assert versions == len(files), "every session file gave its calls"
    assert learned > 50
    # the corpus's home folders: /Users/<name>, /home/<name>, C:\Users\<name>
    for name in ["ivanma", "kobra", "gqadonis", "edouard", "thorstenhindermann", "randy", "david", "24228"]:
        assert f"/Users/{name}" not in text and f"/home/{name}" not in text and f"Users\\\\{name}" not in text, name
    again = runner("learn", env=env, check=True).stdout
    assert f"{len(files) + 1} unchanged since the last import" in again and "0 fixes learned" in again


def test_a_command_out_of_time_is_learned_alike_by_the_hooks_and_by_learn(session, tmp_path):
    """Codex's older shells (`shell_command`) stop a command at the call's
    `timeout_ms` and say so first in its output; the same command run
    again with a longer `timeout_ms` is its fix. The hook reads the time
    limit from the call's own record in the rollout's tail, errkb learn
    from the call's arguments: both learn the same fix, with the longer
    timeout in it."""
    project = session["project"]
    session["rollout"].write_text(json.dumps({"timestamp": "t", "type": "session_meta",
                                              "payload": {"id": "sess-1", "cwd": str(project)}}) + "\n")

    def call_record(call_id, timeout_ms):
        arguments = {"command": "cargo test --test startup", "workdir": str(project)}
        if timeout_ms:
            arguments["timeout_ms"] = timeout_ms
        return json.dumps({"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell_command", "arguments": json.dumps(arguments),
            "call_id": call_id}}) + "\n"

    def output_record(call_id, code, output):
        return json.dumps({"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": call_id,
            "output": f"Exit code: {code}\nWall time: 10 seconds\nOutput:\n{output}"}}) + "\n"

    stopped = "command timed out after 10031 milliseconds\n   Compiling serde v1.0.1\n"
    for call_id, timeout_ms, code, output in [("t_1", None, 124, stopped), ("t_2", None, 124, stopped),
                                              ("t_3", 120_000, 0, "test result: ok. 3 passed; 0 failed\n")]:
        with open(session["rollout"], "a") as f:
            f.write(call_record(call_id, timeout_ms) + rollout_line(call_id, code, project))
        hook(session, "PostToolUse", session["payload"](
            "PostToolUse", tool_name="Bash", tool_input={"command": "cargo test --test startup"},
            tool_response=output, tool_use_id=call_id))
        with open(session["rollout"], "a") as f:
            f.write(output_record(call_id, code, output))
    learned_home = tmp_path / "learned"
    copy = learned_home / ".codex" / "sessions" / "2026" / "01" / "10" / "rollout-2026-01-10T14-27-32-sess.jsonl"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(session["rollout"].read_bytes())
    runner("learn", env={"HOME": str(learned_home), "PATH": "/usr/bin:/bin"}, check=True)

    def learned(home):
        with connection(home / ".reflexion" / "data" / "reflexion.db") as conn:
            ids = dict(conn.execute("SELECT id, data ->> '$.toolUseId' FROM events").fetchall())
            return sorted((ids[e], ids[s], json.loads(r).get("changed"), w) for e, s, r, w in conn.execute(
                "SELECT l.event_id, l.success_event_id, f.resolution, f.weak FROM learned_errors AS l "
                "JOIN fixes AS f ON f.id = l.fix_id").fetchall())
    by_hooks = learned(session["home"])
    assert by_hooks == learned(learned_home)
    # each stop (the second at the default time again) resolved by the run
    # with more time, which is the fix, not a plain retry
    assert by_hooks == [("t_1", "t_3", ["timeout 120000 ms"], 0), ("t_2", "t_3", ["timeout 120000 ms"], 0)], by_hooks
    assert log_of(session) == ""
