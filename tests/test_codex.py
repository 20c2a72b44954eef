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

from codex_standin import (StandIn, call, config_toml, developer_texts, items_around, output_of, patch, search, shell,
                           text)
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
    yield {"home": home, "project": project, "install": out, "teach": teach, "advise": advise,
           "teach_db": teach_db}
    shutil.rmtree(root, ignore_errors=True)  # an installed errkb is over 100 MB


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


def test_a_code_writing_sub_agent_is_briefed_and_is_its_own_stream(story):
    """A `worker` sub-agent (spawn_agent, found with tool_search as Codex
    offers it) gets the project's recent errors as a developer message in
    its first request; its calls are its own stream of the session."""
    def after_spawn(body):
        out = output_of([body], "w_1")["output"]
        agent = json.loads(out if isinstance(out, str) else out[0]["text"]).get("agent_id")
        return [call("w_2", "wait_agent", namespace="multi_agent_v1", targets=[agent], timeout_ms=60000)]

    script = {"start:CODEX-SUB": [search("w_0", "spawn sub-agent")],
              "after:w_0": [call("w_1", "spawn_agent", namespace="multi_agent_v1", message="HELPER-REPORT check it",
                                 agent_type="worker")],
              "after:w_1": after_spawn,
              "start:HELPER-REPORT": [shell("h_1", "python3 nosuch.py")], "after:h_1": [text("helper done")],
              "after:w_2": [text("done")]}
    with StandIn(script) as standin:
        codex(story["home"], story["project"], standin, "CODEX-SUB")
        requests = list(standin.requests)
    # the sub-agent's first request: its task is a user message of its own
    helper = next(r for r in requests if any(i.get("role") == "user" and "HELPER-REPORT" in json.dumps(i)
                                             for i in r["input"]))
    briefing = "\n".join(developer_texts(helper["input"]))
    assert "TypeError: can only concatenate str" in briefing, briefing
    with connection(db_of(story["home"])) as conn:
        [(agent_id, session)] = conn.execute(
            "SELECT data ->> '$.agentId', session_id FROM events WHERE data ->> '$.toolUseId' = 'h_1'").fetchall()
        [main_session] = conn.execute("SELECT DISTINCT session_id FROM events WHERE data ->> '$.toolUseId' = 'w_1'"
                                      ).fetchone()
    assert agent_id and session == main_session


def test_learning_the_rollout_learns_what_the_hooks_did(story, tmp_path):
    """errkb learn on session one's rollout, into an empty knowledge base:
    the same events and fix as the hooks stored live."""
    sessions = [f for f in sorted((story["home"] / ".codex" / "sessions").rglob("rollout-*.jsonl"))
                if "CODEX-ONE" in f.read_text()]
    assert len(sessions) == 1
    db = tmp_path / "learned.db"
    out = runner("--db", str(db), "learn", str(sessions[0]), env={"HOME": str(tmp_path)}, check=True).stdout
    assert "1 session, 3 tool calls (1 error, 0 interrupted)" in out and "1 fix learned" in out

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


# --- one knowledge base for both agents -------------------------------------------

def test_a_fix_learned_in_either_agent_is_told_in_the_other(tmp_path):
    """Claude Code (the real client, tests/test_claude_code.py's harness)
    and Codex on one machine, set up by one `errkb install`: a fix learned
    through Claude Code's hooks is told in Codex, and one learned through
    Codex's hooks is told in Claude Code."""
    from claude_standin import StandIn as ClaudeStandIn, text as claude_text
    from conftest import CLAUDE
    from test_claude_code import bash as claude_bash, claude as run_claude, reset, told as claude_told
    if not CLAUDE.exists():
        pytest.skip("the Claude Code client is not installed: make claude-code")
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir()
    project.mkdir()
    out = runner("install", env={"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "PATH": "/usr/bin:/bin"},
                 check=True).stdout
    assert "setting up errkb for: Claude Code" in out and ", Codex (" in out

    # Claude Code learns: a missing module, installed by a script
    reset(project)
    with ClaudeStandIn({"start:CROSS-ONE": [claude_bash("toolu_x1", "python3 app.py")],
                        "after:toolu_x1": [claude_bash("toolu_x2", "./install-deps.sh")],
                        "after:toolu_x2": [claude_bash("toolu_x3", "python3 app.py")],
                        "after:toolu_x3": [claude_text("done")]}) as standin:
        run_claude(home, project, standin, "CROSS-ONE")
    # … Codex is told
    reset(project)
    with StandIn({"start:CROSS-TWO": [shell("x_1", "python3 app.py")], "after:x_1": [text("done")]}) as standin:
        codex(home, project, standin, "CROSS-TWO")
        requests = list(standin.requests)
    assert "ran: ./install-deps.sh" in told(requests, "x_1"), told(requests, "x_1")

    # Codex learns: a type error, fixed by a patch
    reset(project)
    (project / "report.py").write_text(REPORT)
    with StandIn({"start:CROSS-THREE": [shell("y_1", "python3 report.py")], "after:y_1": [patch("y_2", FIX)],
                  "after:y_2": [shell("y_3", "python3 report.py")], "after:y_3": [text("done")]}) as standin:
        codex(home, project, standin, "CROSS-THREE")
    # … Claude Code is told
    reset(project)
    (project / "report.py").write_text(REPORT)
    with ClaudeStandIn({"start:CROSS-FOUR": [claude_bash("toolu_x4", "python3 report.py")],
                        "after:toolu_x4": [claude_text("done")]}) as standin:
        run_claude(home, project, standin, "CROSS-FOUR")
        claude_requests = list(standin.requests)
    advice = claude_told(claude_requests, "toolu_x4")
    assert "edited report.py" in advice and "str(total)" in advice, advice

    # one knowledge base; each event says whose it was, Claude Code's as before
    with connection(db_of(home)) as conn:
        rows = conn.execute("SELECT type, data ->> '$.toolUseId', data ->> '$.agent' FROM events "
                            "WHERE type IN ('advice', 'tool_error') ORDER BY id").fetchall()
        fixes = conn.execute("SELECT count(*) FROM fixes").fetchone()[0]
    assert rows == [("tool_error", "toolu_x1", None), ("tool_error", "x_1", "codex"), ("advice", "x_1", "codex"),
                    ("tool_error", "y_1", "codex"), ("tool_error", "toolu_x4", None), ("advice", "toolu_x4", None)]
    assert fixes == 2


# --- Codex's own view of the hooks, and the plugin -----------------------------------

def hooks_list(home, project):
    """`codex app-server`'s hooks/list: every hook Codex found for
    `project`, with its trust status."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    proc = subprocess.Popen([str(CODEX), "app-server"], cwd=project, env=env, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        def request(n, method, params):
            proc.stdin.write(json.dumps({"id": n, "method": method, "params": params}) + "\n")
            proc.stdin.flush()
            while True:
                message = json.loads(proc.stdout.readline())
                if message.get("id") == n and "method" not in message:
                    return message
        request(1, "initialize", {"clientInfo": {"name": "errkb-tests", "version": "0"}})
        proc.stdin.write(json.dumps({"method": "initialized"}) + "\n")
        proc.stdin.flush()
        return request(2, "hooks/list", {"cwds": [str(project)]})["result"]["data"][0]["hooks"]
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=10)


def test_codex_itself_calls_the_installed_hooks_trusted(story):
    listed = hooks_list(story["home"], story["project"])
    ours = [h for h in listed if "errkb hook --agent codex" in (h.get("command") or "")]
    assert sorted(h["eventName"] for h in ours) == ["postToolUse", "preToolUse", "sessionEnd", "subagentStart"]
    assert {h["trustStatus"] for h in ours} == {"trusted"}, ours


def codex_cli(home, *args):
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    proc = subprocess.run([str(CODEX), *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_codex_plugin_installed_from_its_marketplace(story, tmp_path):
    """make plugin's folder, added to Codex the way users add it
    (marketplace add, plugin add), its hooks trusted by the plugin's own
    `errkb install --agent codex`: the same hooks run from the plugin's
    files, and hooks.json gets none."""
    if not PLUGIN_MARKETPLACE.exists():
        pytest.skip("no plugin built: make plugin")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    market = tmp_path / "errkb-marketplace"  # where a user unpacked the release
    shutil.copytree(PLUGIN_MARKETPLACE, market)
    codex_cli(home, "plugin", "marketplace", "add", str(market))
    codex_cli(home, "plugin", "add", "errkb@errkb-marketplace")
    # untrusted, Codex would skip the plugin's hooks without a word
    listed = [h for h in hooks_list(home, story["project"]) if h.get("source") == "plugin"]
    assert {h["trustStatus"] for h in listed} == {"untrusted"} and len(listed) == 4
    out = subprocess.run([str(market / "errkb" / "bin" / "errkb"), "install", "--agent", "codex"],
                         env={"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout
    assert "errkb's Codex plugin is enabled (errkb@errkb-marketplace)" in out
    listed = [h for h in hooks_list(home, story["project"]) if h.get("source") == "plugin"]
    assert {h["trustStatus"] for h in listed} == {"trusted"}, listed
    assert all("/plugins/cache/errkb-marketplace/errkb/" in h["command"] for h in listed)
    assert not (home / ".codex" / "hooks.json").exists() or "errkb" not in (home / ".codex" / "hooks.json").read_text()
    # what session one taught, in this HOME's knowledge base
    db_of(home).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(story["teach_db"], db_of(home))
    (story["project"] / "report.py").write_text(REPORT)
    with StandIn({"start:CODEX-PLUGIN": [shell("g_1", "python3 report.py")], "after:g_1": [text("done")]}) as standin:
        codex(home, story["project"], standin, "CODEX-PLUGIN")
        requests = list(standin.requests)
    assert "edited report.py" in told(requests, "g_1")
    report = runner("doctor", env={"HOME": str(home), "CODEX_HOME": str(home / ".codex")}).stdout
    assert "ok   codex hooks   from errkb's Codex plugin errkb@errkb-marketplace" in report, report
