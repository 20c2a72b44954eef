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
from conftest import CLAUDE, DIST, connection, runner
from snapshot import snapshot as snapshot_text

pytestmark = pytest.mark.client
PLUGIN_MARKETPLACE = DIST / "errkb-marketplace"  # make plugin

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



# The project the story plays in: a module that a script installs, a
# report with a type error, a server that needs its database started.
PROJECT = {
    "app.py": "import shoplib\nprint(shoplib.NAME)\n",
    "install-deps.sh": "#!/bin/sh\necho 'NAME = \"shop\"' > shoplib.py\n",
    "report.py": "total = 3\nprint(\"total: \" + total)\n",
    "server.py": ("import os, sys\nif not os.path.exists('db.started'):\n"
                  "    raise ConnectionRefusedError(111, 'Connection refused: the database on 127.0.0.1:5432')\n"
                  "print('serving')\n"),
    "start-db.sh": "#!/bin/sh\ntouch db.started\n",
}
REPORT_FIXED = "total = 3\nprint(\"total: \" + str(total))\n"


def reset(project):
    for name, text in PROJECT.items():
        (project / name).write_text(text)
        if name.endswith(".sh"):
            (project / name).chmod(0o755)
    for made in ("shoplib.py", "db.started"):
        (project / made).unlink(missing_ok=True)


def bash(id, command):
    return tool_use(id, "Bash", command=command, description="run")


# Session 1: a missing module, fixed by an install; a TypeError, fixed by
# an edit.
TEACH = {
    "start:STORY-ONE": [bash("toolu_t1", "python3 app.py")],
    "after:toolu_t1": [bash("toolu_t2", "./install-deps.sh")],
    "after:toolu_t2": [bash("toolu_t3", "python3 app.py")],
    "after:toolu_t3": [bash("toolu_t4", "python3 report.py")],
    "after:toolu_t4": [tool_use("toolu_t5", "Read", file_path="{project}/report.py")],
    "after:toolu_t5": [tool_use("toolu_t6", "Edit", file_path="{project}/report.py",
                                old_string='print("total: " + total)', new_string='print("total: " + str(total))')],
    "after:toolu_t6": [bash("toolu_t7", "python3 report.py")],
    "after:toolu_t7": [text("done")],
}

# Session 2: the module again (advice), the report read (its history), an
# unknown error (nothing), a code subagent that is briefed and fixes the
# unknown error, then the main thread's rerun of it (the warning: a fix it
# was not told), the report's error in the main thread (told already by
# the file's history: nothing), and the subagent hitting a known error it
# was briefed on (nothing more).
ADVISE = {
    "start:STORY-TWO": [bash("toolu_a1", "python3 app.py")],
    "after:toolu_a1": [bash("toolu_a2", "./install-deps.sh")],
    "after:toolu_a2": [bash("toolu_a3", "python3 app.py")],
    "after:toolu_a3": [tool_use("toolu_a4", "Read", file_path="{project}/report.py")],
    "after:toolu_a4": [tool_use("toolu_a5", "Read", file_path="{project}/report.py")],
    "after:toolu_a5": [bash("toolu_a6", "python3 server.py")],
    "after:toolu_a6": [tool_use("toolu_a7", "Agent", description="fix", prompt="HELPER-FIX get the server up",
                                subagent_type="general-purpose", run_in_background=False)],
    "start:HELPER-FIX": [bash("toolu_s1", "python3 server.py")],
    "after:toolu_s1": [bash("toolu_s2", "./start-db.sh")],
    "after:toolu_s2": [bash("toolu_s3", "python3 server.py")],
    "after:toolu_s3": [bash("toolu_s4", "python3 report.py")],
    "after:toolu_s4": [text("server is up")],
    "after:toolu_a7": [bash("toolu_a8", "python3 server.py")],
    "after:toolu_a8": [bash("toolu_a9", "python3 report.py")],
    "after:toolu_a9": [text("done")],
}

# Session 3: the module again: a new session is told again.
AGAIN = {
    "start:STORY-THREE": [bash("toolu_b1", "python3 app.py")],
    "after:toolu_b1": [text("done")],
}

ORDER = {"STORY-TWO": ["toolu_a1", "toolu_a2", "toolu_a3", "toolu_a4", "toolu_a5", "toolu_a6", "toolu_s1",
                       "toolu_s2", "toolu_s3", "toolu_s4", "toolu_a7", "toolu_a8", "toolu_a9"],
         "STORY-THREE": ["toolu_b1"]}


def scripted(script, project):
    return {key: [json.loads(json.dumps(b).replace("{project}", str(project))) for b in blocks]
            for key, blocks in script.items()}


def first_request_of(requests, marker):
    return next(r for r in requests if marker in json.dumps(r["messages"][0]["content"], ensure_ascii=False))


def play(language, root):
    """The story, with errkb installed and speaking `language`: what the
    hooks received, and every request the client sent."""
    home, project = root / f"home-{language}", root / f"project-{language}"
    home.mkdir()
    project.mkdir()
    runner("install", env={"HOME": str(home)}, check=True)
    (home / ".reflexion" / "config.json").write_text(json.dumps({"language": language}))
    log = home / "payloads.jsonl"
    record_payloads(home, log)
    reset(project)
    with StandIn(scripted(TEACH, project)) as standin:
        claude(home, project, standin, "STORY-ONE")
        teach = list(standin.requests)
    teach_payloads = payloads(log)
    teach_db = home / "after-teach.db"  # what the hooks made of session 1
    with connection(home / ".reflexion" / "data" / "reflexion.db") as conn, connection(teach_db) as copy:
        conn.backup(copy)
    log.write_text("")
    reset(project)
    with StandIn(scripted(ADVISE, project)) as standin:
        claude(home, project, standin, "STORY-TWO")
        advise = list(standin.requests)
    advise_payloads = payloads(log)
    reset(project)
    with StandIn(scripted(AGAIN, project)) as standin:
        claude(home, project, standin, "STORY-THREE")
        again = list(standin.requests)
    return {"home": home, "project": project, "teach": teach, "teach_payloads": teach_payloads,
            "teach_db": teach_db, "advise": advise, "advise_payloads": advise_payloads, "again": again}


def told(requests, tool_use_id):
    """What errkb told after the result of `tool_use_id` (its texts only:
    Claude Code's own reminders left out)."""
    _, context = context_after(requests, tool_use_id)
    return "\n".join(line for line in context.split("\n\n") if "hook additional context: " in line
                     or line.startswith(("[Reflexion", "⚠️", "💡"))).strip()


def briefing(requests, marker):
    """The SubagentStart context in a subagent's first request."""
    head = "SubagentStart hook additional context: "
    for message in first_request_of(requests, marker)["messages"]:
        content = message["content"]
        texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content]
        for t in texts:
            if head in t:
                return t.split(head, 1)[1].split("\n\n", 1)[0].replace("<system-reminder>", "").strip()
    return ""


def story_text(story):
    """Every text errkb put before the model, after which call, in order."""
    lines = []
    for marker, requests in (("STORY-TWO", story["advise"]), ("STORY-THREE", story["again"])):
        for tool_use_id in ORDER[marker]:
            text = told(requests, tool_use_id)
            if text:
                lines.append(f"--- after {tool_use_id}\n{text}")
        for helper in ("HELPER-FIX",) if marker == "STORY-TWO" else ():
            text = briefing(requests, helper)
            if text:
                lines.append(f"--- {helper} starts\n{text}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    root = tmp_path_factory.mktemp("story")
    yield play("en", root)
    # (an installed errkb, its model included, is over 100 MB: the run's
    # disk holds the modules' folders until the run ends otherwise)
    shutil.rmtree(root, ignore_errors=True)


def test_the_hooks_get_claude_code_2_1_payloads(sessions):
    by_call = {(p["hook_event_name"], p.get("tool_use_id")): p for p in sessions["teach_payloads"]}
    failure = by_call[("PostToolUseFailure", "toolu_t1")]
    assert failure["is_interrupt"] is False and "ModuleNotFoundError" in failure["error"]
    read = by_call[("PostToolUse", "toolu_t5")]
    # a Read's PostToolUse carries the file as read: what a file's history is checked against
    assert read["tool_response"]["file"]["content"].startswith("total = 3")
    advise = {(p["hook_event_name"], p.get("tool_use_id")): p for p in sessions["advise_payloads"]}
    agent = advise[("PostToolUse", "toolu_a7")]
    assert agent["tool_name"] == "Agent" and agent["tool_input"]["subagent_type"] == "general-purpose"
    sub = advise[("PostToolUse", "toolu_s2")]
    # a subagent's calls carry the parent's session and their own agent_id,
    # the same its SubagentStart had
    start = next(p for p in sessions["advise_payloads"] if p["hook_event_name"] == "SubagentStart")
    assert sub["session_id"] == start["session_id"] and sub["agent_id"] == start["agent_id"]
    assert "agent_id" not in advise[("PostToolUseFailure", "toolu_a1")]


def test_what_session_one_taught(sessions):
    with connection(sessions["teach_db"]) as conn:
        fixes = dict(conn.execute("SELECT error_headline, resolution FROM fixes").fetchall())
    module = json.loads(fixes["ModuleNotFoundError: No module named 'shoplib'"])
    assert module["commands"] == ["./install-deps.sh"] and module["command"] == "python3 app.py"
    report = json.loads(fixes["TypeError: can only concatenate str (not \"int\") to str"])
    assert report["edits"] == [{"file": "report.py", "before": 'print("total: " + total)',
                                "after": 'print("total: " + str(total))'}]
    assert len(fixes) == 2


def test_learning_from_the_transcript_learns_what_the_hooks_did(sessions, tmp_path):
    """errkb learn on session 1's transcript (as the real client wrote it),
    into an empty database: the same events and the same fixes as the
    hooks recorded live."""
    session_id = sessions["teach_payloads"][0]["session_id"]
    [main] = (sessions["home"] / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
    db = tmp_path / "learned.db"
    out = runner("--db", str(db), "learn", str(main), env={"HOME": str(tmp_path)}, check=True).stdout
    assert "1 session, 7 tool calls (2 errors, 0 interrupted)" in out and "2 fixes learned" in out

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
    assert len(hooks[0]) == 7 and len(hooks[2]) == 2
    assert learned == hooks


MASKS = ("<STR>", "<N>", "<PATH>", "<V>", "<SHA>", "<REF>")


def test_each_text_comes_once_where_it_helps(sessions):
    """The story as the model read it: what errkb said, after which call."""
    advise, again = sessions["advise"], sessions["again"]
    # the module's error again: how it was fixed, the decisive step first
    advice = told(advise, "toolu_a1")
    assert advice.index("ran: ./install-deps.sh") < advice.index("then: python3 app.py")
    assert "The same error was fixed before" in advice
    # the report's first Read brings its history (the edit that fixed it);
    # the second Read nothing
    history = told(advise, "toolu_a4")
    assert "⚠️" in history and 'edited report.py: "print("total: " + total)"' in history
    assert told(advise, "toolu_a5") == ""
    # an error nobody fixed yet: nothing
    assert told(advise, "toolu_a6") == ""
    # the subagent is briefed on the project's errors, and fixes the server
    brief = briefing(advise, "HELPER-FIX")
    assert "ModuleNotFoundError" in brief and "TypeError" in brief and "ConnectionRefusedError" in brief
    assert all(told(advise, i) == "" for i in ("toolu_s1", "toolu_s2", "toolu_s3"))
    # the report's error in the subagent: briefed on it already, nothing more
    assert told(advise, "toolu_s4") == ""
    # the main thread runs the server again: the fix its subagent found, which
    # it was not told (it lands beside the command's result)
    warning = told(advise, "toolu_a8")
    assert warning.startswith("PreToolUse:Bash") and "ran: ./start-db.sh" in warning
    # the report's error in the main thread: told by the file's history already
    assert told(advise, "toolu_a9") == ""
    # a new session is told again
    assert "ran: ./install-deps.sh" in told(again, "toolu_b1")
    # no masked value and no cut word anywhere; and each fix told to each
    # agent at most once per session
    text = story_text(sessions)
    assert not any(mask in text for mask in MASKS)
    assert " …" not in text
    with connection(sessions["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        repeats = conn.execute(
            "SELECT e.session_id, e.data ->> '$.agentId', t.value, count(*) FROM events AS e, "
            "json_each(e.data, '$.fixes') AS t WHERE e.type = 'advice' GROUP BY 1, 2, 3 HAVING count(*) > 1").fetchall()
    assert repeats == []
    snapshot_text("story-en", text)


def test_the_same_story_in_korean(tmp_path):
    story = play("ko", tmp_path)
    text = story_text(story)
    assert "[Reflexion 에러 KB] 이전에 동일 에러를 해결한 이력이 있습니다:" in text
    assert "⚠️ 이 파일 관련 과거 에러: " in text and "💡 이 세션에서 Bash 에러 발생 이력: " in text
    assert "이 프로젝트의 최근 에러 패턴:" in text
    assert not any(mask in text for mask in MASKS)
    snapshot_text("story-ko", text)


def test_subagents_briefing_is_for_code_agents_and_their_errors_their_own(sessions, tmp_path):
    requests = sessions["advise"]
    # the subagent's calls are its own stream
    with connection(sessions["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        streams = conn.execute("SELECT data ->> '$.toolUseId', data ->> '$.agentId' IS NOT NULL FROM events "
                               "WHERE data ->> '$.toolUseId' IN ('toolu_s1', 'toolu_a6') AND type = 'tool_error' "
                               "ORDER BY 1").fetchall()
    assert streams == [("toolu_a6", 0), ("toolu_s1", 1)]
    # an Explore agent is not briefed: the matcher starts no process
    script = {"start:STORY-EXPLORE": [tool_use("toolu_e1", "Agent", description="look", prompt="HELPER-EXPLORE look",
                                                subagent_type="Explore", run_in_background=False)],
              "start:HELPER-EXPLORE": [text("nothing")], "after:toolu_e1": [text("done")]}
    with StandIn(script) as standin:
        claude(sessions["home"], sessions["project"], standin, "STORY-EXPLORE")
        explore = list(standin.requests)
    assert briefing(explore, "HELPER-EXPLORE") == ""
    assert briefing(requests, "HELPER-FIX") != ""


def plugin_cli(home, *args):
    proc = subprocess.run([str(CLAUDE), "plugin", *args], capture_output=True, text=True, timeout=120,
                          env={"HOME": str(home), "PATH": os.environ["PATH"], "DISABLE_AUTOUPDATER": "1",
                               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_plugin_installed_from_its_marketplace(sessions, tmp_path):
    """make plugin's folder, installed the way users install it (marketplace
    add, install), runs the same hooks from its own files: no hooks in
    settings.json, nothing from this checkout or ~/.reflexion/bin."""
    home = tmp_path / "home"
    home.mkdir()
    market = tmp_path / "errkb-marketplace"  # where a user unpacked the release
    shutil.copytree(PLUGIN_MARKETPLACE, market)
    plugin_cli(home, "marketplace", "add", str(market))
    plugin_cli(home, "install", "errkb@errkb-marketplace")
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"errkb@errkb-marketplace": True} and "hooks" not in settings
    # what session one taught, in this HOME's knowledge base
    (home / ".reflexion" / "data").mkdir(parents=True)
    shutil.copy(sessions["teach_db"], home / ".reflexion" / "data" / "reflexion.db")
    reset(sessions["project"])
    script = {"start:SCRIPT-PLUGIN": [bash("toolu_plugin1", "python3 app.py")], "after:toolu_plugin1": [text("done")]}
    with StandIn(script) as standin:
        claude(home, sessions["project"], standin, "SCRIPT-PLUGIN")
        requests = list(standin.requests)
    assert "ran: ./install-deps.sh" in told(requests, "toolu_plugin1")
    with connection(home / ".reflexion" / "data" / "reflexion.db") as conn:
        stored = conn.execute("SELECT type, count(*) FROM events WHERE data ->> '$.toolUseId' = 'toolu_plugin1' "
                              "GROUP BY type ORDER BY type").fetchall()
    assert stored == [("advice", 1), ("tool_error", 1)]  # each hook ran once
    assert not (home / ".reflexion" / "bin").exists()
    # the plugin's own runner reports its own setup, the model loading in it
    doctor = subprocess.run([str(market / "errkb" / "bin" / "errkb"), "doctor"], capture_output=True, text=True,
                            env={"HOME": str(home), "PATH": "/usr/bin:/bin"}).stdout
    assert "ok   hooks         from errkb's plugin errkb@errkb-marketplace" in doctor, doctor
    assert "ok   model         all-MiniLM-L6-v2 int8 sha256:" in doctor and "loads and embeds in" in doctor, doctor


def test_claude_validates_the_plugin_and_its_marketplace(tmp_path):
    for folder in (PLUGIN_MARKETPLACE / "errkb", PLUGIN_MARKETPLACE):
        out = plugin_cli(tmp_path, "validate", str(folder))
        assert "Validation passed" in out


def test_the_plugin_is_self_contained_and_has_one_version():
    files = [f for f in PLUGIN_MARKETPLACE.rglob("*") if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    assert size <= 150e6, f"{size / 1e6:.0f} MB"
    plugin_folder = PLUGIN_MARKETPLACE / "errkb"
    names = {str(f.relative_to(plugin_folder)) for f in files if f.is_relative_to(plugin_folder)}
    assert {"bin/errkb", "bin/model/model.onnx", "bin/model/tokenizer.json", "hooks/hooks.json",
            ".claude-plugin/plugin.json", "README.md"} <= names
    assert any(n.startswith("bin/libonnxruntime") for n in names)
    version = runner("--version", check=True).stdout.split()[1]
    plugin = json.loads((PLUGIN_MARKETPLACE / "errkb" / ".claude-plugin" / "plugin.json").read_text())
    offer = json.loads((PLUGIN_MARKETPLACE / ".claude-plugin" / "marketplace.json").read_text())
    assert plugin["version"] == version == offer["plugins"][0]["version"]
    assert offer["plugins"][0]["source"] == "./errkb"


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
        # (sent again as a session of its own: in the sessions themselves
        # each fix was told once, and is not told again)
        again = {**p, "session_id": f"{p['session_id']}-again"}
        output = runner("hook", p["hook_event_name"], stdin=json.dumps(again),
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
