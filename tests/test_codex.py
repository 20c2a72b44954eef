"""The real OpenAI Codex CLI (pinned in the Makefile: `make codex`) driven by
a scripted stand-in of the Responses API (tests/codex_standin.py), with
errkb installed into a throwaway HOME and CODEX_HOME by `errkb install
--agent codex`: the hooks run because install trusted them; a command
fails, a patch fixes it, it succeeds; in a new session the same failure
brings the fix into what the model reads next."""
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codex_standin import StandIn, config_toml, developer_texts, items_around, output_of, patch, shell, text
from conftest import DIST, ROOT, connection, runner

pytestmark = pytest.mark.client

TRIPLES = {("Linux", "x86_64"): ("linux-x64", "x86_64-unknown-linux-musl"),
           ("Linux", "aarch64"): ("linux-arm64", "aarch64-unknown-linux-musl"),
           ("Darwin", "x86_64"): ("darwin-x64", "x86_64-apple-darwin"),
           ("Darwin", "arm64"): ("darwin-arm64", "aarch64-apple-darwin")}
_PLATFORM, _TRIPLE = TRIPLES[(platform.system(), platform.machine())]
CODEX = ROOT / ".cache/codex/node_modules/@openai" / f"codex-{_PLATFORM}" / "vendor" / _TRIPLE / "bin/codex"
PLUGIN_MARKETPLACE = DIST / "errkb-marketplace"  # make plugin

if not CODEX.exists():
    pytest.skip("the Codex CLI is not installed: make codex", allow_module_level=True)

# The stand-in's provider: top-level keys first, its table last, between
# markers, so that each run points Codex at the stand-in of the moment and
# leaves what errkb install wrote (hook trust) as it is.
BEGIN, END = "# stand-in (tests) begin\n", "# stand-in (tests) end\n"


def point_at(codex_home, url):
    path = codex_home / "config.toml"
    kept = path.read_text() if path.exists() else ""
    kept = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), "", kept, flags=re.S)
    provider = config_toml(url)
    top, table = provider.split("\n[", 1)
    path.write_text(f"{BEGIN}{top}\n{END}{kept}\n{BEGIN}[{table}{END}")


def codex(home, project, standin, prompt, *args, timeout=180):
    """One `codex exec` against `standin`, as a user runs it."""
    point_at(home / ".codex", standin.url)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
           "STANDIN_API_KEY": "sk-dummy-not-a-key", "LANG": "C.UTF-8", "TMPDIR": str(home / "tmp"),
           "ERRKB_LANGUAGE": "en"}
    (home / "tmp").mkdir(exist_ok=True)
    proc = subprocess.run([str(CODEX), "exec", "--skip-git-repo-check", "-s", "workspace-write", *args, prompt],
                          cwd=project, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def install(home, *agents):
    args = [a for agent in agents for a in ("--agent", agent)]
    return runner("install", *args, env={"HOME": str(home), "CODEX_HOME": str(home / ".codex")}, check=True).stdout


def db_of(home):
    return home / ".reflexion" / "data" / "reflexion.db"


REPORT = "total = 3\nprint('total: ' + total)\n"
FIX = ("*** Begin Patch\n*** Update File: report.py\n@@\n-print('total: ' + total)\n"
       "+print('total: ' + str(total))\n*** End Patch\n")

TEACH = {
    "start:CODEX-ONE": [shell("c_1", "python3 report.py")],
    "after:c_1": [patch("c_2", FIX)],
    "after:c_2": [shell("c_3", "python3 report.py")],
    "after:c_3": [text("done")],
}
ADVISE = {
    "start:CODEX-TWO": [shell("d_1", "python3 report.py")],
    "after:d_1": [text("done")],
}


def told(requests, call_id):
    """What errkb put before the model after `call_id` (developer messages)."""
    _, around = items_around(requests, call_id)
    return "\n".join(developer_texts(around))


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    root = tmp_path_factory.mktemp("codex")
    home, project = root / "home", root / "project"
    (home / ".codex").mkdir(parents=True)
    project.mkdir()
    out = install(home, "codex")
    (project / "report.py").write_text(REPORT)
    with StandIn(TEACH) as standin:
        codex(home, project, standin, "CODEX-ONE fix the report")
        teach = list(standin.requests)
    teach_db = root / "after-teach.db"
    with connection(db_of(home)) as conn, connection(teach_db) as copy:
        conn.backup(copy)
    (project / "report.py").write_text(REPORT)
    with StandIn(ADVISE) as standin:
        codex(home, project, standin, "CODEX-TWO run the report")
        advise = list(standin.requests)
    return {"home": home, "project": project, "install": out, "teach": teach, "advise": advise,
            "teach_db": teach_db}


def test_install_trusts_the_hooks_it_writes(story):
    out = story["install"]
    assert "trusted errkb's 4 Codex hooks" in out and "without asking you" in out
    hooks = json.loads((story["home"] / ".codex" / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == ["PostToolUse", "PreToolUse", "SessionEnd", "SubagentStart"]
    assert hooks["PostToolUse"][0]["hooks"][0]["command"] == "~/.reflexion/bin/errkb hook --agent codex PostToolUse"


def test_a_failed_command_and_its_patch_are_learned(story):
    with connection(story["teach_db"]) as conn:
        events = conn.execute("SELECT type, data ->> '$.toolUseId', data ->> '$.tool', data ->> '$.agent', "
                              "data ->> '$.turnId' IS NOT NULL FROM events ORDER BY id").fetchall()
        fixes = conn.execute("SELECT error_headline, resolution FROM fixes").fetchall()
    assert [e[:4] for e in events] == [("tool_error", "c_1", "Bash", "codex"), ("tool_use", "c_2", "Edit", "codex"),
                                       ("tool_use", "c_3", "Bash", "codex")]
    assert all(e[4] for e in events)
    [(headline, resolution)] = fixes
    assert headline == "TypeError: can only concatenate str (not \"int\") to str"
    fix = json.loads(resolution)
    assert fix["edits"] == [{"file": "report.py", "before": "print('total: ' + total)",
                             "after": "print('total: ' + str(total))"}]
    assert fix["command"] == "python3 report.py"


def test_the_next_session_is_told_the_fix(story):
    advice = told(story["advise"], "d_1")
    assert "The same error was fixed before" in advice, advice
    assert "edited report.py" in advice and "print('total: ' + str(total))" in advice
    # the first session heard nothing (nothing was known), and no hook failed
    assert all(told(story["teach"], c) == "" for c in ("c_1", "c_2", "c_3"))
    log = story["home"] / ".reflexion" / "logs" / "hooks.log"
    assert not log.exists() or "warning" not in log.read_text(), log.read_text()


def test_learning_the_rollout_learns_what_the_hooks_did(story, tmp_path):
    """errkb learn on session one's rollout, into an empty knowledge base:
    the same events and fix as the hooks stored live."""
    sessions = sorted((story["home"] / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    assert len(sessions) == 2
    db = tmp_path / "learned.db"
    out = runner("--db", str(db), "learn", str(sessions[0]), env={"HOME": str(tmp_path)}, check=True).stdout
    assert "1 sessions, 3 tool calls (1 errors, 0 interrupted)" in out and "1 fixes learned" in out

    def snapshot(path):
        with connection(path) as conn:
            events = conn.execute(
                "SELECT type, data ->> '$.toolUseId', data ->> '$.tool', data -> '$.meta', data ->> '$.error', "
                "data ->> '$.signature', data ->> '$.agent', data ->> '$.turnId' FROM events "
                "WHERE type IN ('tool_use', 'tool_error') ORDER BY 2").fetchall()
            fixes = conn.execute("SELECT f.uid, f.error_headline, f.resolution, f.weak FROM fixes AS f").fetchall()
        return events, fixes

    assert snapshot(db) == snapshot(story["teach_db"])
    # and again: nothing new
    again = runner("--db", str(db), "learn", str(sessions[0]), env={"HOME": str(tmp_path)}, check=True).stdout
    assert "0 fixes learned" in again


def test_doctor_reports_the_codex_hooks(story):
    env = {"HOME": str(story["home"]), "CODEX_HOME": str(story["home"] / ".codex")}
    report = runner("doctor", env=env).stdout
    [line] = [l for l in report.splitlines() if "codex hooks" in l]
    assert line.startswith("ok   codex hooks   all 4 installed in") and "trusted; they run" in line, report
