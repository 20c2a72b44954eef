"""The real Claude Code client (pinned in the Makefile: `make claude-code`)
driven by a scripted stand-in of the Messages API, with errkb installed into
a temporary HOME: what the client sends to the hooks, and where each hook's
context lands in the next request to the "model"."""
import json
import os
import shutil
import subprocess

import pytest

from claude_standin import StandIn, context_after, text, tool_use
from conftest import CLAUDE, ROOT, connection, runner
from snapshot import ADVICE_HEAD, BASH_HEAD, FILE_HEAD, SUBAGENT_HEAD

BROKEN = "import yaml_helpers\nprint('ok')\n"


def claude(home, project, standin, prompt, *extra):
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "ANTHROPIC_BASE_URL": standin.url,
           "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    proc = subprocess.run([str(CLAUDE), "-p", prompt, "--output-format", "json",
                           "--allowedTools", "Bash Read Edit Write Agent", *extra],
                          cwd=project, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert json.loads(proc.stdout)["is_error"] is False
    return proc


def record_payloads(home, log):
    """Beside errkb's hooks, one that keeps every payload Claude Code sends."""
    settings_file = home / ".claude" / "settings.json"
    settings = json.loads(settings_file.read_text())
    for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure", "SubagentStart"]:
        settings["hooks"].setdefault(event, []).append(
            {"matcher": "*", "hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]})
    settings_file.write_text(json.dumps(settings))


def payloads(log):
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


# Session 1: python fails on a missing module; the agent reads the file,
# fixes the import and reruns it (learned); a subagent runs the script too.
TEACH = {
    "start:SCRIPT-ONE": [tool_use("toolu_t1", "Bash", command="python3 app.py", description="run the app")],
    "after:toolu_t1": [tool_use("toolu_t2", "Read", file_path="{project}/app.py")],
    "after:toolu_t2": [tool_use("toolu_t3", "Edit", file_path="{project}/app.py",
                                old_string="import yaml_helpers", new_string="import json")],
    "after:toolu_t3": [tool_use("toolu_t4", "Bash", command="python3 app.py", description="run it again")],
    "after:toolu_t4": [tool_use("toolu_t5", "Agent", description="check", prompt="HELPER-ONE check the app",
                                subagent_type="general-purpose", run_in_background=False)],
    "start:HELPER-ONE": [tool_use("toolu_s1", "Bash", command="python3 app.py", description="run")],
    "after:toolu_s1": [text("fine")],
    "after:toolu_t5": [text("done")],
}

# Session 2: the same failure again; the file is read twice; an unrelated
# and a related command; a code subagent that fails the same way, and an
# Explore agent.
ADVISE = {
    "start:SCRIPT-TWO": [tool_use("toolu_a1", "Bash", command="python3 app.py", description="run the app")],
    "after:toolu_a1": [tool_use("toolu_a2", "Read", file_path="{project}/app.py")],
    "after:toolu_a2": [tool_use("toolu_a3", "Read", file_path="{project}/app.py")],
    "after:toolu_a3": [tool_use("toolu_a4", "Bash", command="ls", description="list")],
    "after:toolu_a4": [tool_use("toolu_a5", "Bash", command="python3 app.py --verbose", description="rerun")],
    "after:toolu_a5": [tool_use("toolu_a6", "Agent", description="fix", prompt="HELPER-CODE fix the app",
                                subagent_type="general-purpose", run_in_background=False)],
    "start:HELPER-CODE": [tool_use("toolu_c1", "Bash", command="python3 app.py", description="run")],
    "after:toolu_c1": [text("still broken")],
    "after:toolu_a6": [tool_use("toolu_a7", "Agent", description="look", prompt="HELPER-EXPLORE look around",
                                subagent_type="Explore", run_in_background=False)],
    "start:HELPER-EXPLORE": [text("nothing")],
    "after:toolu_a7": [text("done")],
}


def scripted(script, project):
    return {key: [json.loads(json.dumps(b).replace("{project}", str(project))) for b in blocks]
            for key, blocks in script.items()}


def first_request_of(requests, marker):
    return next(r for r in requests if marker in json.dumps(r["messages"][0]["content"], ensure_ascii=False))


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    project = tmp_path_factory.mktemp("project")
    runner("install", env={"HOME": str(home)}, check=True)
    log = home / "payloads.jsonl"
    record_payloads(home, log)
    (project / "app.py").write_text(BROKEN)
    with StandIn(scripted(TEACH, project)) as standin:
        claude(home, project, standin, "SCRIPT-ONE")
        teach = list(standin.requests)
    teach_payloads = payloads(log)
    teach_db = home / "after-teach.db"  # what the hooks made of session 1
    with connection(home / ".reflexion" / "data" / "reflexion.db") as conn, connection(teach_db) as copy:
        conn.backup(copy)
    log.write_text("")
    (project / "app.py").write_text(BROKEN)
    with StandIn(scripted(ADVISE, project)) as standin:
        claude(home, project, standin, "SCRIPT-TWO")
        advise = list(standin.requests)
    return {"home": home, "project": project, "teach": teach, "teach_payloads": teach_payloads, "teach_db": teach_db,
            "advise": advise, "advise_payloads": payloads(log)}


def test_the_hooks_get_claude_code_2_1_payloads(sessions):
    by_call = {(p["hook_event_name"], p.get("tool_use_id")): p for p in sessions["teach_payloads"]}
    failure = by_call[("PostToolUseFailure", "toolu_t1")]
    assert failure["is_interrupt"] is False and "ModuleNotFoundError" in failure["error"]
    agent = by_call[("PostToolUse", "toolu_t5")]
    assert agent["tool_name"] == "Agent" and agent["tool_input"]["subagent_type"] == "general-purpose"
    sub = by_call[("PostToolUse", "toolu_s1")]
    # a subagent's calls carry the parent's session and their own agent_id
    assert sub["session_id"] == failure["session_id"] and sub["agent_id"] and "agent_id" not in failure
    # the PreToolUse matcher: Agent calls start no errkb process (the
    # recording hook matches everything; errkb's own entry is checked in
    # test_install), Read does
    assert ("PreToolUse", "toolu_t2") in by_call


def test_what_session_one_taught(sessions):
    with connection(sessions["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        fixes = conn.execute("SELECT resolution FROM error_kb").fetchall()
        agents = conn.execute("SELECT data ->> '$.tool', data ->> '$.agentId' IS NOT NULL, data ->> '$.toolUseId' "
                              "FROM events WHERE type IN ('tool_use', 'tool_error') ORDER BY id").fetchall()
    [(resolution,)] = fixes
    fix = json.loads(resolution)
    assert fix["command"] == "python3 app.py" and fix["edits"][0]["after"] == "import json"
    assert ("Bash", True, "toolu_s1") in agents and ("Agent", False, "toolu_t5") in agents


def test_learning_from_the_transcript_learns_what_the_hooks_did(sessions, tmp_path):
    """errkb learn on session 1's transcript (as the real client wrote it),
    into an empty database: the same events and the same fix as the hooks
    recorded live."""
    session_id = sessions["teach_payloads"][0]["session_id"]
    [main] = (sessions["home"] / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
    paths = [main, main.with_suffix("")]  # the session's file and its subagents' folder
    db = tmp_path / "learned.db"
    out = runner("--db", str(db), "learn", *map(str, paths), env={"HOME": str(tmp_path)}, check=True).stdout
    assert "1 sessions, 6 tool calls (1 errors, 0 interrupted)" in out and "1 fixes learned" in out

    def snapshot(path):
        with connection(path) as conn:
            events = conn.execute(
                "SELECT type, data ->> '$.toolUseId', data ->> '$.tool', data -> '$.meta', data ->> '$.error', "
                "data ->> '$.signature', data ->> '$.subject', data ->> '$.agentId' IS NOT NULL FROM events "
                "WHERE session_id = ? AND type IN ('tool_use', 'tool_error', 'tool_interrupt') ORDER BY 2",
                (session_id,)).fetchall()
            kb = conn.execute("SELECT error_normalized, resolution, resolved_by, tool_sequence, use_count "
                              "FROM error_kb ORDER BY 1").fetchall()
            fixes = conn.execute("SELECT f.uid, f.error_headline, f.resolution, f.weak, c.learned, c.sessions "
                                 "FROM fixes AS f JOIN fix_counts AS c ON c.fix_id = f.id ORDER BY 1").fetchall()
        return events, kb, fixes

    hooks, learned = snapshot(sessions["teach_db"]), snapshot(db)
    assert len(hooks[0]) == 6 and hooks[1]
    assert learned == hooks


def test_a_failure_gets_the_fix_beside_its_result(sessions):
    _, context = context_after(sessions["advise"], "toolu_a1")
    assert ADVICE_HEAD in context and "ModuleNotFoundError: No module named 'yaml_helpers'" in context
    assert "edited" in context and '"import json"' in context


def test_a_files_history_comes_with_its_first_read_only(sessions):
    _, first = context_after(sessions["advise"], "toolu_a2")
    _, second = context_after(sessions["advise"], "toolu_a3")
    assert FILE_HEAD in first and "ModuleNotFoundError" in first
    assert FILE_HEAD not in second


def test_the_bash_warning_only_for_the_related_command(sessions):
    _, unrelated = context_after(sessions["advise"], "toolu_a4")
    _, related = context_after(sessions["advise"], "toolu_a5")
    assert BASH_HEAD not in unrelated
    assert BASH_HEAD in related


def test_subagents_get_their_briefing_and_their_own_advice(sessions):
    requests = sessions["advise"]
    code = json.dumps(first_request_of(requests, "HELPER-CODE")["messages"], ensure_ascii=False)
    assert SUBAGENT_HEAD in code and "yaml_helpers" in code
    explore = json.dumps(first_request_of(requests, "HELPER-EXPLORE")["messages"], ensure_ascii=False)
    assert SUBAGENT_HEAD not in explore  # the matcher skipped it: no process started
    _, advice = context_after(requests, "toolu_c1")
    assert ADVICE_HEAD in advice
    # the subagent's failure did not warn the main thread's later calls, and
    # its events are its own stream
    with connection(sessions["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        streams = conn.execute("SELECT type, data ->> '$.agentId' IS NOT NULL FROM events "
                               "WHERE data ->> '$.toolUseId' = 'toolu_c1' AND type <> 'advice'").fetchall()
    assert streams == [("tool_error", 1)]


def test_the_plugin_runs_the_same_hooks(sessions, tmp_path):
    """--plugin-dir: the repository as a plugin, no hooks in settings.json;
    its bin/errkb falls back to this checkout's dist/errkb."""
    home = tmp_path / "home"
    (home / ".reflexion" / "data").mkdir(parents=True)
    shutil.copy(sessions["home"] / ".reflexion" / "data" / "reflexion.db", home / ".reflexion" / "data")
    (sessions["project"] / "app.py").write_text(BROKEN)
    script = {"start:SCRIPT-PLUGIN": [tool_use("toolu_p1", "Bash", command="python3 app.py", description="run")],
              "after:toolu_p1": [text("done")]}
    with StandIn(script) as standin:
        claude(home, sessions["project"], standin, "SCRIPT-PLUGIN", "--plugin-dir", str(ROOT))
        requests = list(standin.requests)
    _, context = context_after(requests, "toolu_p1")
    assert ADVICE_HEAD in context
    assert not (home / ".claude" / "settings.json").exists() or "hooks" not in json.loads(
        (home / ".claude" / "settings.json").read_text())


def test_claude_validates_the_plugin(tmp_path):
    proc = subprocess.run([str(CLAUDE), "plugin", "validate", str(ROOT)], capture_output=True, text=True,
                          env={"HOME": str(tmp_path), "PATH": os.environ["PATH"]}, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Validation passed" in proc.stdout


def test_the_plugin_hooks_file_is_the_hook_table():
    assert (ROOT / "hooks" / "hooks.json").read_text() == runner("plugin-hooks", check=True).stdout


def test_payloads_and_outputs_type_check_against_the_sdk(sessions, tmp_path):
    """The payloads the client sent and the answers errkb printed, as
    TypeScript values of the SDK's hook types, through tsc."""
    lines = ['import type { PreToolUseHookInput, PostToolUseHookInput, PostToolUseFailureHookInput,',
             '  SubagentStartHookInput, SyncHookJSONOutput } from "@anthropic-ai/claude-agent-sdk";']
    kinds = {"PreToolUse": "PreToolUseHookInput", "PostToolUse": "PostToolUseHookInput",
             "PostToolUseFailure": "PostToolUseFailureHookInput", "SubagentStart": "SubagentStartHookInput"}
    seen = set()
    for n, p in enumerate(sessions["teach_payloads"] + sessions["advise_payloads"]):
        kind = kinds[p["hook_event_name"]]
        seen.add(kind)
        lines.append(f"export const payload{n}: {kind} = {json.dumps(p, ensure_ascii=False)};")
        output = runner("hook", p["hook_event_name"], stdin=json.dumps(p),
                        env={"HOME": str(sessions["home"])}).stdout
        if output:
            lines.append(f"export const output{n}: SyncHookJSONOutput = {output.strip()};")
    assert seen == set(kinds.values())
    assert sum(line.startswith("export const output") for line in lines) >= 3
    source = CLAUDE.parents[3]  # the npm prefix that holds the SDK and TypeScript
    check = source / "errkb-hook-types.ts"
    check.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([str(source / "node_modules" / ".bin" / "tsc"), "--noEmit", "--strict",
                           "--skipLibCheck", "--target", "es2022", "--module", "nodenext",
                           "--moduleResolution", "nodenext", str(check)],
                          cwd=source, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
