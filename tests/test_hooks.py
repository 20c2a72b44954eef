"""errkb hook: the learning loop through the runner, with payloads in the
shape Claude Code sends, on a real database under a temporary HOME."""
import json
import time

import pytest

from conftest import ROOT, RUNNER, connection, insert_kb, runner, sqlite
from snapshot import ADVICE_HEAD, snapshot


def payload(session, tool, tool_input, error=None, event="PostToolUse", cwd="/work/app"):
    body = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": cwd,
            "hook_event_name": event, "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_01"}
    if error is not None:
        body["error"] = error
    return json.dumps(body)


@pytest.fixture
def home(tmp_path):
    return tmp_path


def hook(home, event, body):
    return runner("hook", event, stdin=body, env={"HOME": str(home)})


def db_rows(home, sql):
    with connection(home / ".reflexion" / "data" / "reflexion.db") as conn:
        return conn.execute(sql).fetchall()


MISSING = "Error: Cannot find module '/work/app/src/util.js'\nRequire stack:\n- /work/app/src/index.js"


def test_an_error_then_success_is_learned_once_and_advised_later(home):
    first = hook(home, "PostToolUseFailure",
                 payload("s1", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    hook(home, "PostToolUse", payload("s1", "Edit", {"file_path": "/work/app/src/index.js",
                                                     "old_string": "./util", "new_string": "./utils"}))
    hook(home, "PostToolUse", payload("s1", "Bash", {"command": "node src/index.js"}))
    hook(home, "PostToolUse", payload("s1", "Bash", {"command": "node src/index.js"}))  # a later success
    assert db_rows(home, "SELECT use_count, resolved_by, tool_sequence FROM error_kb") == [(1, "Bash", '["Edit","Bash"]')]
    # A new session hits the same error: it is told how it was fixed.
    again = hook(home, "PostToolUseFailure",
                 payload("s2", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    assert again.returncode == 0
    # The advice quotes the original error (its identifying line), so the
    # agent can judge whether it is the same problem.
    snapshot("hook-post-tool-use-failure-advice", context(again, "PostToolUseFailure"))
    # The same error with other values is a similar one, said so.
    similar = hook(home, "PostToolUseFailure",
                   payload("s3", "Bash", {"command": "node src/index.js"},
                           "Error: Cannot find module '/work/app/src/helpers.js'\nRequire stack:\n- /work/app/src/index.js",
                           "PostToolUseFailure"))
    snapshot("hook-failure-advice-similar", context(similar, "PostToolUseFailure"))
    assert db_rows(home, "SELECT use_count FROM error_kb") == [(3,)]  # each hit, counted once
    assert db_rows(home, "SELECT type, session_id, project FROM events ORDER BY id") == [
        ("tool_error", "s1", "app"), ("tool_use", "s1", "app"), ("tool_use", "s1", "app"),
        ("tool_use", "s1", "app"), ("tool_error", "s2", "app"), ("advice", "s2", "app"),
        ("tool_error", "s3", "app"), ("advice", "s3", "app")]

    # The history views answer the usual questions: in the sqlite3 shell
    # with the extension, in one that cannot load it (as Apple's) after
    # `.read` of the views' file, and through the runner.
    questions = ("SELECT error, times, sessions, has_fix FROM kb_frequent_errors;"
                 "SELECT times_advised, stages FROM kb_reused_fixes;"
                 "SELECT failures, advised, hit_rate FROM kb_advice_hit_rate;"
                 "SELECT count(*) FROM kb_unresolved_errors;")
    answers = "Error: Cannot find module <STR>\nRequire stack:\n- <PATH>|3|3|1\n2|exact\n3|2|0.667\n0\n"
    db = home / ".reflexion" / "data" / "reflexion.db"
    assert sqlite(db, questions).stdout == answers
    assert sqlite(db, f".read {ROOT / 'sql' / 'history_views.sql'}", questions, load=False).stdout == answers
    script = home / "questions.sql"
    script.write_text(questions)
    assert runner("run", str(script), env={"HOME": str(home)}, check=True).stdout == answers
    # They are the connection's own: the file holds none of them.
    assert db_rows(home, "SELECT count(*) FROM sqlite_schema WHERE type = 'view'") == [(0,)]


def test_each_error_of_a_chain_is_learned_with_the_steps_after_it(home):
    """npm test fails, the package is edited, it fails otherwise, a package
    is installed, it passes: both errors are resolved by the pass, each
    with what came after it; the install alone resolves nothing."""
    hook(home, "PostToolUseFailure", payload("s", "Bash", {"command": "npm test"},
                                             'npm error Missing script: "test"', "PostToolUseFailure"))
    hook(home, "PostToolUse", payload("s", "Edit", {"file_path": "/work/app/package.json"}))
    hook(home, "PostToolUseFailure", payload("s", "Bash", {"command": "npm test"},
                                             "Error: jest: not found", "PostToolUseFailure"))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "npm install -D jest"}))  # a step, not a retry
    assert db_rows(home, "SELECT count(*) FROM error_kb") == [(0,)]
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "npm test"}))  # the retry: resolves both
    hook(home, "PostToolUse", payload("s", "Edit", {"file_path": "/work/app/jest.config.js"}))
    rows = db_rows(home, "SELECT error_normalized, json_extract(resolution, '$.resolvedBy'), "
                         "json_extract(resolution, '$.commands'), json_extract(resolution, '$.writes') "
                         "FROM error_kb ORDER BY id")
    assert rows == [('npm error Missing script: <STR>', "success_after_error", '["npm install -D jest"]',
                     '["package.json"]'),
                    ("Error: jest: not found", "success_after_error", '["npm install -D jest"]', None)]


def test_the_decisive_command_is_kept_whole(home):
    """The step that fixed it, a long `ALTER TABLE … ADD COLUMN` through
    sqlite3, is stored and learned whole, not cut at its first words."""
    error = "Exit code 1\nError: SqliteError: no such column: is_imported\n    at Database.prepare (src/db.ts:41:12)"
    alter = ("sqlite3 data/evaluations.db \"ALTER TABLE evaluations ADD COLUMN is_imported INTEGER NOT NULL DEFAULT 0; "
             "ALTER TABLE evaluations ADD COLUMN imported_from TEXT; ALTER TABLE evaluations ADD COLUMN imported_at TEXT; "
             "CREATE INDEX IF NOT EXISTS idx_evaluations_imported ON evaluations(is_imported, imported_at);\"")
    assert 300 < len(alter) < 500
    hook(home, "PostToolUseFailure", payload("s", "Bash", {"command": "bun run test"}, error, "PostToolUseFailure"))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": alter}))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "bun run test"}))
    assert db_rows(home, "SELECT json_extract(resolution, '$.commands') FROM error_kb") == [(json.dumps([alter]),)]


def test_a_sandboxs_refusal_learned_for_one_program_is_told_for_another(home):
    """mkdir refused by the sandbox, then run with it disabled: cp and rm
    refused the same way later are told so; a missing file is not."""
    refused = "Exit code 1\n{}: Operation not permitted"
    hook(home, "PostToolUseFailure", payload("s1", "Bash", {"command": "mkdir -p /Users/x/.cache/app"},
                                             refused.format("mkdir: /Users/x/.cache/app"), "PostToolUseFailure"))
    hook(home, "PostToolUse", payload("s1", "Bash", {"command": "mkdir -p /Users/x/.cache/app",
                                                     "dangerouslyDisableSandbox": True}))
    for n, (command, error) in enumerate([("cp a.txt /Users/x/.cache/app/", refused.format("cp: /Users/x/.cache/app/a.txt")),
                                          ("rm -r /Users/x/.cache/old", refused.format("rm: cannot remove '/Users/x/.cache/old'"))]):
        told = context(hook(home, "PostToolUseFailure", payload(f"s{n + 2}", "Bash", {"command": command}, error,
                                                                "PostToolUseFailure")), "PostToolUseFailure")
        assert "dangerouslyDisableSandbox" in told and "mkdir: ~/.cache/app: Operation not permitted" in told
    missing = hook(home, "PostToolUseFailure", payload("s9", "Bash", {"command": "cp b.txt c/"},
                                                       "Exit code 1\ncp: b.txt: No such file or directory",
                                                       "PostToolUseFailure"))
    assert missing.stdout == ""


def test_an_unrelated_success_learns_nothing_the_retry_does(home):
    """`ls` after a failing `python3 app.py` is not its fix;
    `python app.py` run again is, with what happened in between."""
    error = "Traceback (most recent call last):\n  File \"/work/app/app.py\", line 1\nModuleNotFoundError: No module named 'yaml'"
    hook(home, "PostToolUseFailure", payload("s", "Bash", {"command": "python3 app.py"}, error, "PostToolUseFailure"))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "ls -la"}))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "git status"}))
    assert db_rows(home, "SELECT count(*) FROM error_kb") == [(0,)]
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "pip install pyyaml"}))
    assert db_rows(home, "SELECT count(*) FROM error_kb") == [(0,)]
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "cd /work/app && python app.py"}))
    rows = db_rows(home, "SELECT json_extract(resolution, '$.command'), tool_sequence, s.signature "
                         "FROM error_kb JOIN error_kb_signatures s ON s.error_kb_id = error_kb.id")
    # (the project folder shown as `.`, as every path in it is relative)
    assert rows == [("cd . && python app.py", '["Bash","Bash","Bash","Bash"]',
                     "ModuleNotFoundError: No module named <STR>")]


def test_a_subagents_success_is_not_the_main_threads_fix(home):
    """The main thread and each subagent are separate streams."""
    def with_agent(body, agent_id):
        data = json.loads(body)
        data["agent_id"] = agent_id
        return json.dumps(data)
    hook(home, "PostToolUseFailure", payload("s", "Bash", {"command": "make build"}, "make: *** No rule to make target 'build'.  Stop.",
                                             "PostToolUseFailure"))
    hook(home, "PostToolUse", with_agent(payload("s", "Bash", {"command": "make build"}), "agent-1"))
    assert db_rows(home, "SELECT count(*) FROM error_kb") == [(0,)]
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "make build"}))
    assert db_rows(home, "SELECT count(*) FROM error_kb") == [(1,)]


def test_secrets_and_sensitive_paths_are_not_stored(home):
    hook(home, "PostToolUse", payload("s", "Read", {"file_path": "/work/app/.env.local"}))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "curl -H 'Authorization: Bearer abc123' x"}))
    data = [json.loads(d) for (d,) in db_rows(home, "SELECT data FROM events ORDER BY id")]
    assert data[0]["meta"] == {"file": "[SENSITIVE_PATH]"}
    assert data[1]["meta"] == {"command": "curl", "subject": "curl",
                               "line": "curl -H 'Authorization: Bearer [REDACTED]' x"}
    assert "abc123" not in json.dumps(db_rows(home, "SELECT * FROM events"))


def test_disabled_in_config_does_nothing(home):
    (home / ".reflexion").mkdir()
    (home / ".reflexion" / "config.json").write_text('{"enabled": false}')
    proc = hook(home, "PostToolUseFailure", payload("s", "Bash", {}, "boom", "PostToolUseFailure"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert not (home / ".reflexion" / "data").exists()


@pytest.mark.parametrize("event, body", [
    ("PostToolUseFailure", "this is not JSON"),
    ("NoSuchEvent", "{}"),
])
def test_failures_exit_0_silently_and_are_logged(home, event, body):
    proc = hook(home, event, body)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    log = (home / ".reflexion" / "logs" / "hooks.log").read_text()
    assert f" {event}: " in log


def test_missing_home_still_exits_0_silently(tmp_path):
    import subprocess
    proc = subprocess.run([str(RUNNER), "hook", "PostToolUse"], input="{}", capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)}, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    [log] = tmp_path.glob("errkb-*-hooks.log")  # its trace, in the temporary folder, by user
    assert "HOME is not set" in log.read_text()


def test_a_hook_with_its_output_closed_stores_and_damages_nothing(home):
    """Claude Code gives a hook open pipes; a hook run by hand or by another
    program may have none. The answer must not land in a file errkb opened
    in place of standard output."""
    import subprocess
    learn_missing_module(home)
    (home / "payload.json").write_text(
        payload("s2", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    proc = subprocess.run(["sh", "-c", f"'{RUNNER}' hook PostToolUseFailure < payload.json >&- 2>&-"],
                          cwd=home, env={"HOME": str(home), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode == 0
    # the failure stored and the advice noted, as with open pipes
    assert db_rows(home, "SELECT count(*) FROM events WHERE session_id = 's2' AND type IN ('tool_error', 'advice')") \
        == [(2,)]
    assert db_rows(home, "PRAGMA integrity_check") == [("ok",)]
    for path in (home / ".reflexion").rglob("*"):
        if path.is_file():
            assert b"hookSpecificOutput" not in path.read_bytes(), path


def learn_missing_module(home, session="s1"):
    hook(home, "PostToolUseFailure",
         payload(session, "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    hook(home, "PostToolUse", payload(session, "Edit", {"file_path": "/work/app/src/index.js",
                                                        "old_string": "./util", "new_string": "./utils"}))
    hook(home, "PostToolUse", payload(session, "Bash", {"command": "node src/index.js"}))




def context(proc, event):
    assert proc.returncode == 0 and proc.stderr == ""
    answer = json.loads(proc.stdout)
    assert list(answer) == ["hookSpecificOutput"]
    assert answer["hookSpecificOutput"]["hookEventName"] == event
    return answer["hookSpecificOutput"]["additionalContext"]


def pre(home, session, tool, tool_input, agent_id=None):
    body = json.loads(payload(session, tool, tool_input, event="PreToolUse"))
    if agent_id:
        body.update(agent_id=agent_id, agent_type="general-purpose")
    proc = hook(home, "PreToolUse", json.dumps(body))
    assert (proc.returncode, proc.stderr) == (0, "")
    return context(proc, "PreToolUse") if proc.stdout else None




def post(home, session, tool, tool_input, response=None, agent_id=None):
    """A PostToolUse call; the hook's context, or None."""
    body = json.loads(payload(session, tool, tool_input))
    if response is not None:
        body["tool_response"] = response
    if agent_id:
        body.update(agent_id=agent_id, agent_type="general-purpose")
    proc = hook(home, "PostToolUse", json.dumps(body))
    assert (proc.returncode, proc.stderr) == (0, "")
    return context(proc, "PostToolUse") if proc.stdout else None


def read_of(path, content):
    return {"type": "text", "file": {"filePath": path, "content": content, "numLines": content.count("\n"),
                                     "startLine": 1, "totalLines": content.count("\n") + 1}}


BROKEN_INDEX = "const u = require('./util');\nmain(u);\n"


def test_a_files_history_comes_with_its_first_read_once_per_agent(home):
    learn_missing_module(home)
    index = "/work/app/src/index.js"
    # index.js is in the error's require stack and was the fix: its first
    # Read in a session brings the history (beside the file, after the
    # Read), a second Read or the Edit after it nothing more.
    history = post(home, "s9", "Read", {"file_path": index}, read_of(index, BROKEN_INDEX))
    snapshot("hook-file-history", history)
    assert post(home, "s9", "Read", {"file_path": index}, read_of(index, BROKEN_INDEX)) is None
    assert post(home, "s9", "Edit", {"file_path": index, "old_string": "a", "new_string": "b"}) is None
    # a subagent of the same session has not heard it; another session neither
    assert post(home, "s9", "Read", {"file_path": index}, read_of(index, BROKEN_INDEX), agent_id="a1") == history
    assert post(home, "s10", "Read", {"file_path": index}, read_of(index, BROKEN_INDEX)) == history
    # a file that holds the fix already: nothing to say
    fixed = "const u = require('./utils');\nmain(u);\n"
    assert post(home, "s11", "Read", {"file_path": index}, read_of(index, fixed)) is None
    # another index.js, a file no error was about
    assert post(home, "s12", "Read", {"file_path": "/work/app/lib/index.js"}, read_of("x", BROKEN_INDEX)) is None
    assert post(home, "s12", "Read", {"file_path": "/work/app/README.md"}, read_of("x", "# app\n")) is None
    told = db_rows(home, "SELECT session_id, data ->> '$.key', data ->> '$.agentId', json_array_length(data, '$.fixes') "
                         "FROM events WHERE type = 'advice' ORDER BY id")
    assert told == [("s9", "file:src/index.js", None, 1), ("s9", "file:src/index.js", "a1", 1),
                    ("s10", "file:src/index.js", None, 1)]
    # what a file's history told is not told again by the failure advice
    again = hook(home, "PostToolUseFailure",
                 payload("s10", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    assert (again.returncode, again.stdout) == (0, "")


def test_the_bash_warning_tells_only_what_this_agent_was_not_told(home):
    # s1 fails while no fix is known: nothing to advise
    assert hook(home, "PostToolUseFailure",
                payload("s1", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure")).stdout == ""
    # meanwhile another session learns the fix
    learn_missing_module(home, session="s2")
    # unrelated commands of s1 hear nothing
    for command in ["ls", "git status", "npm test", "node other.js"]:
        assert pre(home, "s1", "Bash", {"command": command}) is None, command
    # the same operation again: what s1 was not told, once
    warning = pre(home, "s1", "Bash", {"command": "cd /work/app && node src/index.js --verbose"})
    snapshot("hook-bash-warning", warning)
    assert pre(home, "s1", "Bash", {"command": "node src/index.js"}) is None
    # nor does the failure advice tell it again
    again = hook(home, "PostToolUseFailure",
                 payload("s1", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    assert (again.returncode, again.stdout) == (0, "")
    # a subagent of the session did not fail: the main thread's error is not its own
    assert pre(home, "s1", "Bash", {"command": "node src/index.js"}, agent_id="a1") is None
    # an agent told by the failure advice hears no warning
    told = hook(home, "PostToolUseFailure",
                payload("s3", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    assert context(told, "PostToolUseFailure").startswith(ADVICE_HEAD)
    assert pre(home, "s3", "Bash", {"command": "node src/index.js"}) is None


def test_a_fix_is_told_once_per_session_and_agent(home):
    learn_missing_module(home)
    failure = json.loads(payload("s2", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    told = hook(home, "PostToolUseFailure", json.dumps(failure))
    assert context(told, "PostToolUseFailure").startswith(ADVICE_HEAD)
    # the same failure again in that session: it was told, once is enough,
    # and the fix is not counted as used again
    again = hook(home, "PostToolUseFailure", json.dumps(failure))
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert db_rows(home, "SELECT use_count FROM error_kb") == [(2,)]
    # a subagent of that session has not heard it; another session neither
    sub = hook(home, "PostToolUseFailure", json.dumps({**failure, "agent_id": "a1", "agent_type": "general-purpose"}))
    assert context(sub, "PostToolUseFailure").startswith(ADVICE_HEAD)
    other = hook(home, "PostToolUseFailure", json.dumps({**failure, "session_id": "s3"}))
    assert context(other, "PostToolUseFailure").startswith(ADVICE_HEAD)


def test_a_row_an_older_writer_filled_is_told_once_per_session_too(home):
    """A row with a resolution but no `fixes` row (the original system, an
    old version): it has no fix uid, and is still told only once."""
    runner("init", env={"HOME": str(home)}, check=True)
    key = "Error: Cannot find module <PATH>"
    insert_kb(home / ".reflexion" / "data" / "reflexion.db",
              [{"error_normalized": key, "error_raw": key, "resolution": '{"tool": "Bash", "command": "npm ci"}'}])
    failure = payload("s1", "Bash", {"command": "node a.js"}, "Error: Cannot find module /work/app/a.js",
                      "PostToolUseFailure")
    assert "npm ci" in context(hook(home, "PostToolUseFailure", failure), "PostToolUseFailure")
    assert hook(home, "PostToolUseFailure", failure).stdout == ""
    assert db_rows(home, "SELECT use_count FROM error_kb") == [(1,)]


def test_an_interrupt_is_neither_learned_nor_advised(home):
    learn_missing_module(home)
    body = json.loads(payload("s5", "Bash", {"command": "node src/index.js"}, MISSING, "PostToolUseFailure"))
    interrupted = hook(home, "PostToolUseFailure", json.dumps({**body, "is_interrupt": True}))
    assert (interrupted.returncode, interrupted.stdout, interrupted.stderr) == (0, "", "")
    failed = hook(home, "PostToolUseFailure", json.dumps({**body, "is_interrupt": False}))
    assert context(failed, "PostToolUseFailure").startswith(ADVICE_HEAD)
    assert db_rows(home, "SELECT type FROM events WHERE session_id = 's5' ORDER BY id") == [
        ("tool_interrupt",), ("tool_error",), ("advice",)]
    # "Interrupted by user", then the same command succeeds: nothing learned
    hook(home, "PostToolUseFailure", json.dumps({**body, "session_id": "s6", "is_interrupt": True,
                                                 "error": "Interrupted by user"}))
    hook(home, "PostToolUse", payload("s6", "Bash", {"command": "node src/index.js"}))
    assert db_rows(home, "SELECT count(*) FROM error_kb WHERE error_raw LIKE '%Interrupted%'") == [(0,)]


def test_tool_calls_are_stored_as_claude_code_2_1_names_them(home):
    hook(home, "PostToolUse", payload("s7", "Agent", {"description": "d", "prompt": "p",
                                                      "subagent_type": "Explore", "model": "haiku"}))
    hook(home, "PostToolUse", payload("s7", "Task", {"prompt": "p", "subagent_type": "executor"}))
    hook(home, "PostToolUse", payload("s7", "NotebookEdit", {"notebook_path": "/work/app/a.ipynb",
                                                             "new_source": "x = 1"}))
    assert db_rows(home, "SELECT data ->> '$.tool', data ->> '$.meta', data ->> '$.toolUseId' FROM events "
                         "WHERE session_id = 's7' ORDER BY id") == [
        ("Agent", '{"agentType":"Explore","model":"haiku"}', "toolu_01"),
        ("Task", '{"agentType":"executor","model":null}', "toolu_01"),
        ("NotebookEdit", '{"file":"/work/app/a.ipynb","edit":{"before":"","after":"x = 1"}}', "toolu_01")]


def test_subagent_start_briefs_in_whole_lines(home):
    learn_missing_module(home)
    hook(home, "PostToolUseFailure", payload("s1", "Read", {"file_path": "/work/app/x"},
                                             "File does not exist.", "PostToolUseFailure"))
    with connection(home / ".reflexion" / "data" / "reflexion.db") as conn:
        conn.execute("INSERT INTO analysis_cache (ts, project, days, analysis) VALUES "
                     "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 hour'), 'app', 7, ?)", (json.dumps({"suggestions": [
                         {"type": "claude_md", "rule": "Run npm install after changing package.json", "project": "app"},
                         {"type": "claude_md", "summary": "Prefer relative imports", "project": None},
                         {"type": "claude_md", "rule": "Another project's rule", "project": "other"},
                         {"type": "workflow", "rule": "not a claude_md suggestion"}]}),))
    body = {"session_id": "s1", "cwd": "/work/app", "hook_event_name": "SubagentStart",
            "agent_type": "oh-my-claudecode:executor-high", "agent_id": "a1"}
    text = context(hook(home, "SubagentStart", json.dumps(body)), "SubagentStart")
    snapshot("hook-subagent-start", text)
    # Long rules: the 500-character cut drops whole lines, never half of one.
    with connection(home / ".reflexion" / "data" / "reflexion.db") as conn:
        conn.execute("UPDATE analysis_cache SET analysis = ?", (json.dumps({"suggestions": [
            {"type": "claude_md", "rule": f"rule {i}: " + "x" * 140} for i in range(3)]}),))
    # (another subagent: the first was told the fix, and is not told it twice)
    cut = context(hook(home, "SubagentStart", json.dumps({**body, "agent_id": "a2"})), "SubagentStart")
    assert len(cut) <= 500 and cut.startswith(text.split("적용할")[0])
    assert all(line.startswith(("-", "  ", "이 ", "적용할")) for line in cut.split("\n"))
    assert cut.split("\n")[-1] in {f"- rule {i}: " + "x" * 140 for i in range(3)}
    assert "- rule 0" in cut and "- rule 2" not in cut  # the errors first, then the rules that fit


def test_the_subagent_matcher_selects_code_agents(home):
    """Claude Code matches SubagentStart's matcher against the agent type
    (a JavaScript regex, since it is not a plain list of names); checked
    here with node's RegExp, the client's own engine family."""
    import subprocess
    from conftest import hooks_table
    [matcher] = [h["matcher"] for h in hooks_table() if h["event"] == "SubagentStart"]
    types = ["executor", "oh-my-claudecode:executor-high", "build-fixer-low", "architect-medium",
             "my-plugin:designer", "general-purpose", "Explore", "Plan", "researcher", "statusline-setup"]
    script = "const m = new RegExp(process.argv[1]); for (const t of process.argv.slice(2)) console.log(m.test(t));"
    out = subprocess.run(["node", "-e", script, matcher, *types], capture_output=True, text=True, check=True)
    assert dict(zip(types, out.stdout.split())) == {
        "executor": "true", "oh-my-claudecode:executor-high": "true", "build-fixer-low": "true",
        "architect-medium": "true", "my-plugin:designer": "true", "general-purpose": "true",
        "Explore": "false", "Plan": "false", "researcher": "false", "statusline-setup": "false"}
    # not a plain list of names, which Claude Code would compare exactly
    import re
    assert not re.fullmatch(r"[A-Za-z0-9_|, -]+", matcher)


@pytest.mark.model
def test_session_end_returns_and_embeds_in_the_background(home):
    learn_missing_module(home)
    proc = hook(home, "SessionEnd", json.dumps({"session_id": "s1", "cwd": "/work/app",
                                                "hook_event_name": "SessionEnd", "reason": "exit"}))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    deadline = time.time() + 60
    while time.time() < deadline:
        if db_rows(home, "SELECT count(*) FROM vec_error_kb_rowids") == [(1,)]:
            break
        time.sleep(0.1)
    assert db_rows(home, "SELECT count(*) FROM vec_error_kb_rowids") == [(1,)]


def test_the_same_scripts_run_through_the_sqlite3_shell(home):
    """scripts/sqlite3-hook: the stock sqlite3 shell, the same .sql files,
    the same answer as the runner's."""
    import subprocess
    from conftest import DIST, ROOT, SQL
    learn_missing_module(home)
    body = payload("s3", "Bash", {"command": "node src/index.js"},
                   "Error: Cannot find module '/work/app/src/helpers.js'\nRequire stack:\n- /work/app/src/index.js", "PostToolUseFailure")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "ERRKB_EXTENSION": str(DIST / "errkb"), "ERRKB_SQL_DIR": str(SQL),
           "ERRKB_LANGUAGE": "ko", "TMPDIR": str(home / "tmp")}
    (home / "tmp").mkdir()
    shell = subprocess.run([str(ROOT / "scripts" / "sqlite3-hook"), "PostToolUseFailure"], input=body,
                           capture_output=True, text=True, env=env)
    assert shell.returncode == 0 and shell.stderr == ""
    # the runner, in a session not yet told of this fix
    runner_answer = hook(home, "PostToolUseFailure", body.replace('"s3"', '"s4"')).stdout
    assert json.loads(shell.stdout) == json.loads(runner_answer)
    assert db_rows(home, "SELECT count(*) FROM events WHERE session_id IN ('s3', 's4') AND type = 'tool_error'") == [(2,)]
    # the payload (what the tool printed: secrets, perhaps) is not left behind
    assert list((home / "tmp").iterdir()) == []


def test_a_tools_output_is_not_given_to_the_script_and_nothing_changes(home):
    """PostToolUse's script never reads tool_response (a Read's whole file, a
    command's whole output): the runner leaves it out of :stdin, and stores
    and learns exactly what the sqlite3 shell, given all of it, does."""
    import subprocess
    from conftest import DIST, ROOT, SQL
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "ERRKB_EXTENSION": str(DIST / "errkb"), "ERRKB_SQL_DIR": str(SQL),
           "ERRKB_LANGUAGE": "ko", "TMPDIR": str(home / "tmp")}
    (home / "tmp").mkdir()
    output = {"stdout": "built\n" * 200_000, "stderr": "", "interrupted": False}
    for session, run in [("by-runner", lambda event, body: hook(home, event, body)),
                         ("by-shell", lambda event, body: subprocess.run(
                             [str(ROOT / "scripts" / "sqlite3-hook"), event], input=body,
                             capture_output=True, text=True, env=env, check=True))]:
        run("PostToolUseFailure", payload(session, "Bash", {"command": "make all"}, "make: *** No rule to make target 'all'.",
                                          "PostToolUseFailure"))
        run("PostToolUse", json.dumps({**json.loads(payload(session, "Edit", {"file_path": "/work/app/Makefile",
                                                                              "old_string": "al:", "new_string": "all:"})),
                                       "tool_response": {"filePath": "/work/app/Makefile", "oldString": "al:"}}))
        run("PostToolUse", json.dumps({**json.loads(payload(session, "Bash", {"command": "make all"})),
                                       "tool_response": output}))
    stored = db_rows(home, "SELECT session_id, type, json_remove(data, '$.toolUseId') FROM events "
                           "WHERE type = 'tool_use' ORDER BY session_id, id")
    assert [row[1:] for row in stored if row[0] == "by-runner"] == [row[1:] for row in stored if row[0] == "by-shell"]
    assert len(stored) == 4
    # both learned the fix, the edit's after in it (counted three times: each
    # learned it, and the second session's failure was advised it)
    assert db_rows(home, "SELECT count(*) FROM learned_errors") == [(2,)]
    assert db_rows(home, "SELECT c.learned + c.advised, json_extract(f.resolution, '$.edits[0].after') "
                         "FROM fixes AS f JOIN fix_counts AS c ON c.fix_id = f.id") == [(3, "all:")]


def test_a_slow_search_is_abandoned_but_the_event_is_kept(home):
    """The time budget: a user's edited script whose search never ends. The
    hook gives up on it well inside Claude Code's timeout, keeps the event,
    and logs why."""
    scripts = home / ".reflexion" / "sql" / "hooks"
    scripts.mkdir(parents=True)
    (scripts / "PostToolUseFailure.sql").write_text(
        "INSERT INTO events (type, ts, session_id, data) VALUES "
        "('tool_error', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), json_extract(:stdin, '$.session_id'), '{}');\n"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n;\n")
    # A script that never ends would hang here: runner()'s deadline fails the
    # test instead. That the hook stopped by itself shows in its log.
    proc = hook(home, "PostToolUseFailure", payload("s", "Bash", {}, "boom", "PostToolUseFailure"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert db_rows(home, "SELECT session_id FROM events") == [("s",)]
    assert "interrupted" in (home / ".reflexion" / "logs" / "hooks.log").read_text()
