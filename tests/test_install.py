"""errkb install / uninstall / doctor, and a simulated session driven by the
exact command lines the install writes into Claude Code's settings.json."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import connection, runner
from snapshot import snapshot

ORIGINAL = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}]},
}


@pytest.fixture
def home(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(ORIGINAL, indent=2))
    return tmp_path


def settings(home):
    return json.loads((home / ".claude" / "settings.json").read_text())


def backups(home):
    return sorted((home / ".claude").glob("settings.json.*.bak"))


def test_install_merges_backs_up_and_is_idempotent(home):
    dry = runner("install", "--dry-run", env={"HOME": str(home)}, check=True)
    assert '+            "command": "~/.reflexion/bin/errkb hook PostToolUseFailure",' in dry.stdout
    assert settings(home) == ORIGINAL and not (home / ".reflexion").exists()  # dry run: nothing changed

    runner("install", env={"HOME": str(home)}, check=True)
    s = settings(home)
    assert s["model"] == "opus" and s["permissions"] == ORIGINAL["permissions"]
    assert s["hooks"]["PreToolUse"][0] == ORIGINAL["hooks"]["PreToolUse"][0]  # the user's hook stays first
    assert s["hooks"]["PreToolUse"][1] == {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "~/.reflexion/bin/errkb hook PreToolUse", "timeout": 3}]}
    assert sorted(s["hooks"]) == ["PostToolUse", "PostToolUseFailure", "PreToolUse", "SessionEnd", "SubagentStart"]
    [backup] = backups(home)
    assert json.loads(backup.read_text()) == ORIGINAL
    for script in ["PostToolUseFailure", "PostToolUse", "PreToolUse", "SubagentStart", "SessionEnd"]:
        assert (home / ".reflexion" / "sql" / "hooks" / f"{script}.sql").exists()

    again = runner("install", env={"HOME": str(home)}, check=True)
    assert again.stdout.endswith("settings.json: already up to date\n")
    assert settings(home) == s and len(backups(home)) == 1


def test_install_points_to_past_sessions(home):
    folder = home / ".claude" / "projects" / "-work-shop"
    folder.mkdir(parents=True)
    (folder / "0b9c7a5e-1111-2222-3333-444444444444.jsonl").write_text("{}\n")
    out = runner("install", env={"HOME": str(home)}, check=True).stdout  # not a terminal: no question
    assert f"1 past Claude Code session in {home / '.claude' / 'projects'}: 'errkb learn' learns" in out


def test_install_on_a_terminal_asks_and_learns(home):
    import os
    import pty
    import select
    import sys
    from conftest import RUNNER
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from transcript_corpus import Session
    s = Session()
    s.bash("make", error="make: *** No rule to make target 'al'.  Stop.")
    s.bash("make all", "ok")
    s.bash("make", "ok")
    s.write(home / ".claude" / "projects")
    master, slave = pty.openpty()
    proc = subprocess.Popen([str(RUNNER), "install"], stdin=slave, stdout=slave, stderr=slave,
                            env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    os.close(slave)
    seen = b""
    while b"[Y/n]" not in seen:
        ready, _, _ = select.select([master], [], [], 30)
        assert ready, seen  # no question within 30 s
        seen += os.read(master, 4096)
    os.write(master, b"y\n")
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        try:
            chunk = os.read(master, 4096) if ready else b""
        except OSError:  # the other side closed: the command ended
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=30) == 0
    assert "1 fix learned" in seen.decode(), seen.decode()


def test_uninstall_leaves_only_what_was_there(home):
    runner("install", env={"HOME": str(home)}, check=True)
    runner("uninstall", env={"HOME": str(home)}, check=True)
    assert settings(home) == ORIGINAL
    assert (home / ".reflexion" / "bin" / "errkb").exists()  # data and files stay


def test_an_edited_hook_script_is_kept(home):
    runner("install", env={"HOME": str(home)}, check=True)
    script = home / ".reflexion" / "sql" / "hooks" / "PreToolUse.sql"
    script.write_text("SELECT NULL WHERE 0; -- mine\n")
    out = runner("install", env={"HOME": str(home)}, check=True).stdout
    assert f"keep {script} (edited by you)" in out
    assert script.read_text() == "SELECT NULL WHERE 0; -- mine\n"
    assert script.with_suffix(".sql.new").read_text().startswith("-- PreToolUse")


def test_an_untouched_hook_script_is_upgraded(home):
    runner("install", env={"HOME": str(home)}, check=True)
    script = home / ".reflexion" / "sql" / "hooks" / "PreToolUse.sql"
    older = "SELECT NULL WHERE 0; -- as an older errkb shipped it\n"
    script.write_text(older)  # what an earlier version installed, and remembered
    (home / ".reflexion" / "sql" / "hooks" / ".installed" / "PreToolUse.sql").write_text(older)
    out = runner("install", env={"HOME": str(home)}, check=True).stdout
    assert f"update {script}" in out
    assert script.read_text().startswith("-- PreToolUse")


def test_invalid_settings_are_left_alone(home):
    (home / ".claude" / "settings.json").write_text("{ not json")
    proc = runner("install", env={"HOME": str(home)})
    assert proc.returncode == 2 and "is not valid JSON; fix it first (nothing was changed)" in proc.stderr
    assert (home / ".claude" / "settings.json").read_text() == "{ not json"


def installed_command(home, event):
    [group] = [g for g in settings(home)["hooks"][event] if "errkb" in json.dumps(g)]
    return group["hooks"][0]["command"]


def claude_runs(home, event, body, tmp_path):
    """Run the hook as Claude Code does: its command line through a shell,
    the payload on stdin, from a directory outside the source tree."""
    proc = subprocess.run(["sh", "-c", installed_command(home, event)], input=json.dumps(body), text=True,
                          capture_output=True, cwd=tmp_path, env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0 and proc.stderr == ""
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None


def test_a_session_through_the_installed_commands(home, tmp_path):
    runner("install", env={"HOME": str(home)}, check=True)
    base = {"transcript_path": "/tmp/t.jsonl", "cwd": "/work/shop", "permission_mode": "default"}

    def tool(event, session, name, tool_input, **extra):
        return claude_runs(home, event, {**base, "session_id": session, "hook_event_name": event,
                                         "tool_name": name, "tool_input": tool_input, "tool_use_id": "toolu_1",
                                         **extra}, tmp_path)

    failure = "Error: Cannot find module '/work/shop/src/cart.js'\nRequire stack:\n- /work/shop/src/app.js"
    assert tool("PostToolUseFailure", "one", "Bash", {"command": "node src/app.js"}, error=failure) is None
    assert tool("PostToolUse", "one", "Edit", {"file_path": "/work/shop/src/app.js", "old_string": "cart",
                                               "new_string": "basket"}, tool_response={"success": True}) is None
    assert tool("PostToolUse", "one", "Bash", {"command": "node src/app.js"}, tool_response={"stdout": "ok"}) is None
    assert tool("PostToolUse", "one", "Bash", {"command": "npm test"}, tool_response={"stdout": "ok"}) is None
    db = home / ".reflexion" / "data" / "reflexion.db"
    with connection(db) as conn:
        assert conn.execute("SELECT count(*), sum(use_count) FROM error_kb").fetchone() == (1, 1)  # learned once

    told = tool("PostToolUseFailure", "two", "Bash", {"command": "node src/app.js"},
                error="Error: Cannot find module '/home/me/shop/src/cart.js'\nRequire stack:\n- /home/me/shop/src/app.js")
    snapshot("install-session-advice", told)
    # a file with a history, written without a Read: its history (in the
    # locale's language: English here, where the test runs with none)
    history = tool("PostToolUse", "three", "Edit", {"file_path": "/work/shop/src/app.js", "old_string": "a",
                                                     "new_string": "b"}, tool_response={"success": True})
    snapshot("install-session-file-history", history)
    assert json.loads((home / ".reflexion" / "config.json").read_text())["language"] == "en"

    with connection(db) as conn:
        conn.execute("INSERT INTO analysis_cache (ts, project, days, analysis) VALUES "
                     "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'shop', 7, ?)",
                     (json.dumps({"suggestions": [{"type": "claude_md", "rule": "Keep imports relative", "project": "shop"}]}),))
    agent = {**base, "session_id": "two", "hook_event_name": "SubagentStart", "agent_id": "a1"}
    briefed = claude_runs(home, "SubagentStart", {**agent, "agent_type": "executor"}, tmp_path)
    snapshot("install-session-briefing", briefed)
    # which agents are briefed is the matcher's job (test_hooks checks it selects code agents)
    [group] = [g for g in settings(home)["hooks"]["SubagentStart"] if "errkb" in json.dumps(g)]
    assert group["matcher"] == "(executor|architect|designer|build-fixer|general-purpose)"
    # Payloads as Claude Code sends them are nothing to log.
    assert not (home / ".reflexion" / "logs" / "hooks.log").exists()


def test_with_the_plugin_enabled_install_writes_no_hooks(home):
    runner("install", env={"HOME": str(home)}, check=True)
    s = settings(home)
    s["enabledPlugins"] = {"errkb@errkb": True}
    (home / ".claude" / "settings.json").write_text(json.dumps(s))
    out = runner("install", env={"HOME": str(home)}, check=True).stdout
    assert "errkb's Claude Code plugin is enabled: its hooks run errkb, settings.json gets none" in out
    after = settings(home)
    assert "errkb" not in json.dumps(after["hooks"])  # the earlier install's hooks are gone, not doubled
    assert after["hooks"]["PreToolUse"] == ORIGINAL["hooks"]["PreToolUse"]
    assert (home / ".reflexion" / "bin" / "errkb").exists()  # for the user's shell
    # enabled, but Claude Code has not installed it: doctor says so
    doctor = runner("doctor", env={"HOME": str(home)}).stdout
    assert "FAIL hooks         errkb's plugin (errkb@errkb) is enabled in " in doctor and "but not installed" in doctor
    assert "remedy: claude plugin install errkb@errkb" in doctor
    # a disabled plugin: the hooks come back
    after["enabledPlugins"] = {"errkb@errkb": False}
    (home / ".claude" / "settings.json").write_text(json.dumps(after))
    runner("install", env={"HOME": str(home)}, check=True)
    assert "errkb hook PreToolUse" in json.dumps(settings(home)["hooks"])


def test_doctor_reports_hooks_and_failures(home):
    before = runner("doctor", env={"HOME": str(home)})
    assert "FAIL hooks         not installed in" in before.stdout and before.returncode == 1
    runner("install", env={"HOME": str(home)}, check=True)
    runner("hook", "PostToolUse", stdin="not json", env={"HOME": str(home)})
    after = runner("doctor", env={"HOME": str(home)}).stdout
    assert "ok   hooks         all 5 installed in" in after
    assert "ok   hook failures 1 in the last 7 days (1 × other error)" in after
    assert "PostToolUse: PostToolUse.sql on " in after and "malformed JSON" in after


def test_doctor_checks_the_built_in_functions_and_the_shell_extension(home, tmp_path):
    runner("install", env={"HOME": str(home)}, check=True)
    # The installed runner, as the hooks run it, checks the installed extension file.
    installed = subprocess.run([str(home / ".reflexion" / "bin" / "errkb"), "doctor"], capture_output=True, text=True,
                               env={"HOME": str(home), "PATH": "/usr/bin:/bin"}).stdout
    assert "ok   extension     built in: v" in installed and ", sqlite-vec v" in installed
    assert f"ok   shell ext.    {home / '.reflexion' / 'lib' / 'errkb.so'} loads (v" in installed
    broken = tmp_path / "errkb.so"
    broken.write_bytes(b"not a shared library")
    report = runner("doctor", env={"HOME": str(home), "ERRKB_EXTENSION": str(broken)})
    assert report.returncode == 1
    assert f"FAIL shell ext.    cannot load the errkb extension from {broken}" in report.stdout




# --- errkb for the user's shell: ~/.local/bin/errkb ---------------------------

def test_install_links_errkb_for_the_shell_and_uninstall_removes_it(home):
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SHELL": "/usr/bin/zsh"}
    link, installed = home / ".local" / "bin" / "errkb", home / ".reflexion" / "bin" / "errkb"
    dry = runner("install", "--dry-run", env=env, check=True).stdout
    assert f"would link {link} → {installed}" in dry and not link.is_symlink()
    out = runner("install", env=env, check=True).stdout
    assert f"linked {link} → {installed} (errkb for your shell)" in out
    assert (f"{link.parent} is not on your PATH; for errkb in your shell, add this line to ~/.zshrc: "
            'export PATH="$HOME/.local/bin:$PATH"') in out
    assert os.readlink(link) == str(installed)  # the installed copy, not this build
    on_path = {**env, "PATH": f"{link.parent}:/usr/bin:/bin"}
    again = runner("install", env=on_path, check=True).stdout
    assert f"{link} links to {installed} already" in again and "not on your PATH" not in again
    shell = subprocess.run(["sh", "-c", "errkb --version"], env=on_path, capture_output=True, text=True)
    assert shell.stdout.startswith("errkb ")
    assert "would remove" in runner("uninstall", "--dry-run", env=env, check=True).stdout and link.is_symlink()
    assert f"removed {link}" in runner("uninstall", env=env, check=True).stdout
    assert not link.is_symlink() and installed.exists()


@pytest.mark.parametrize("what, text, said", [
    ("a command of the user's", "#!/bin/sh\necho mine\n",
     "is not errkb's: left as it is; for errkb in your shell, add this line to ~/.profile: "
     'export PATH="$HOME/.reflexion/bin:$PATH"'),
    ("pip install --user's errkb", "#!/usr/bin/python3\nimport sys\nfrom errkb.__main__ import main\n",
     "is another errkb command (from pip or npm, say): left as it is"),
])
def test_install_never_replaces_a_command_that_is_not_its_link(home, what, text, said):
    link = home / ".local" / "bin" / "errkb"
    link.parent.mkdir(parents=True)
    link.write_text(text)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"}
    assert f"{link} {said}" in runner("install", env=env, check=True).stdout
    runner("uninstall", env=env, check=True)
    assert link.read_text() == text
