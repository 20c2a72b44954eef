"""errkb hook: the learning loop through the runner, with payloads in the
shape Claude Code sends, on a real database under a temporary HOME."""
import json

import pytest

from conftest import RUNNER, connection, runner


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
ADVICE = ("[Reflexion 에러 KB] 이전에 동일 에러를 해결한 이력이 있습니다:\n"
          "- 에러: Error: Cannot find module <STR>\nRequire stack:\n- <PATH>\n"
          "- 해결 방법: success_after_error: Edit → Bash; command: node src/index.js; file: /work/app/src/index.js\n"
          "이 정보를 참고하여 해결을 시도하세요.")


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
                 payload("s2", "Bash", {"command": "node main.js"},
                         "Error: Cannot find module '/srv/x/lib.js'\nRequire stack:\n- /srv/x/main.js",
                         "PostToolUseFailure"))
    assert again.returncode == 0
    assert json.loads(again.stdout) == {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
                                                               "additionalContext": ADVICE}}
    assert db_rows(home, "SELECT use_count FROM error_kb") == [(2,)]  # the hit, counted once
    assert db_rows(home, "SELECT type, session_id, project FROM events ORDER BY id") == [
        ("tool_error", "s1", "app"), ("tool_use", "s1", "app"), ("tool_use", "s1", "app"),
        ("tool_use", "s1", "app"), ("tool_error", "s2", "app")]


def test_an_older_error_is_learned_across_tools(home):
    hook(home, "PostToolUseFailure", payload("s", "Bash", {"command": "npm test"},
                                             'npm error Missing script: "test"', "PostToolUseFailure"))
    hook(home, "PostToolUse", payload("s", "Edit", {"file_path": "/work/app/package.json"}))
    hook(home, "PostToolUseFailure", payload("s", "Bash", {"command": "npm test"},
                                             "Error: jest: not found", "PostToolUseFailure"))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "npm install"}))  # resolves the latest Bash error
    hook(home, "PostToolUse", payload("s", "Edit", {"file_path": "/work/app/jest.config.js"}))
    rows = db_rows(home, "SELECT error_normalized, json_extract(resolution, '$.resolvedBy'), tool_sequence "
                         "FROM error_kb ORDER BY id")
    assert rows == [("Error: jest: not found", "success_after_error", '["Bash"]'),
                    ('npm error Missing script: <STR>', "cross_tool_resolution", '["Edit","Bash"]')]


def test_secrets_and_sensitive_paths_are_not_stored(home):
    hook(home, "PostToolUse", payload("s", "Read", {"file_path": "/work/app/.env.local"}))
    hook(home, "PostToolUse", payload("s", "Bash", {"command": "curl -H 'Authorization: Bearer abc123' x"}))
    data = [json.loads(d) for (d,) in db_rows(home, "SELECT data FROM events ORDER BY id")]
    assert data[0]["meta"] == {"file": "[SENSITIVE_PATH]"}
    assert data[1]["meta"] == {"command": "curl"}
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


def test_missing_home_is_logged_nowhere_but_still_exits_0(tmp_path):
    import subprocess
    proc = subprocess.run([str(RUNNER), "hook", "PostToolUse"], input="{}", capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin"})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
