"""What a fix holds: the commands run between an error and the
retry that worked, the edits made (a compact before → after), then the
command that succeeded; redacted; several fixes per error, each counted.
Sessions go through the hook commands, as Claude Code runs them."""
import json
import subprocess

from conftest import runner

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def payload(session, tool, tool_input, error=None):
    event = "PostToolUseFailure" if error is not None else "PostToolUse"
    body = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": "/work/shop",
            "hook_event_name": event, "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_01"}
    if error is not None:
        body["error"] = error
    return event, json.dumps(body)


def run(home, session, tool, tool_input, error=None):
    event, body = payload(session, tool, tool_input, error)
    proc = runner("hook", event, stdin=body, env={"HOME": str(home)}, check=True)
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout.strip() else None


PY_ERROR = ("Exit code 1\nTraceback (most recent call last):\n  File \"/work/shop/app.py\", line 1, in <module>\n"
            "    import yaml\nModuleNotFoundError: No module named 'yaml'")
NODE_ERROR = ("Exit code 1\nnode:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\n"
              "Error: Cannot find module './util'\nRequire stack:\n- /work/shop/src/index.js")


def test_fixes_name_what_was_done_and_keep_no_secret(tmp_path):
    home = tmp_path
    # Session 1: a missing package, installed, then the retry works.
    run(home, "s1", "Bash", {"command": "python3 app.py"}, PY_ERROR)
    run(home, "s1", "Bash", {"command": "ls"})
    run(home, "s1", "Bash", {"command": "pip install pyyaml"})
    run(home, "s1", "Bash", {"command": "python3 app.py"})
    # A node module path fixed by a one-line Edit that also holds a token.
    run(home, "s1", "Bash", {"command": "node src/index.js"}, NODE_ERROR)
    run(home, "s1", "Read", {"file_path": "/work/shop/src/index.js"})
    run(home, "s1", "Edit", {"file_path": "/work/shop/src/index.js",
                             "old_string": "const util = require('./util');\nconst token = 'x';",
                             "new_string": f"const util = require('./utils');\nconst token = '{SECRET}';"})
    run(home, "s1", "Bash", {"command": "node src/index.js"})

    # Session 2: the same failures, elsewhere, get the fixes.
    python = run(home, "s2", "Bash", {"command": "python3 tool.py"},
                 PY_ERROR.replace("app.py", "tool.py").replace("'yaml'", "'yaml'"))
    # the decisive step first, then the command that worked
    assert "- 해결 방법:\n  실행: pip install pyyaml\n  그다음: python3 app.py\n" in python
    assert "실행: ls" not in python  # looking around is not part of the fix
    # an edit of index.js says nothing of what to change in main.js
    other_file = run(home, "s2", "Bash", {"command": "node src/main.js"},
                     NODE_ERROR.replace("./util'", "./helpers'").replace("index.js", "main.js"))
    assert other_file is None, other_file
    # the same error in the same file gets it, paths relative to the
    # project (the sessions' cwd, /work/shop)
    node = run(home, "s2", "Bash", {"command": "node src/index.js"}, NODE_ERROR)
    assert "  수정 src/index.js: \"const util = require('./util');" in node
    assert "\"const util = require('./utils');" in node
    assert SECRET not in node and "[REDACTED]" in node

    # The secret is in no file errkb wrote.
    for path in (home / ".reflexion").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_each_distinct_fix_is_kept_with_its_count(tmp_path):
    home = tmp_path
    error = "Error: Cannot find module 'express'\nRequire stack:\n- /work/shop/app.js"
    for session, install in (("a", "npm install express"), ("b", "npm install express"), ("c", "npm ci")):
        run(home, session, "Bash", {"command": "node app.js"}, error)
        run(home, session, "Bash", {"command": install})
        run(home, session, "Bash", {"command": "node app.js"})
    db = home / ".reflexion" / "data" / "reflexion.db"
    rows = subprocess.run(["sqlite3", str(db), "SELECT json_extract(f.resolution, '$.commands[0]'), "
                                               "c.learned + c.advised FROM fixes AS f "
                                               "JOIN fix_counts AS c ON c.fix_id = f.id ORDER BY f.id"],
                          capture_output=True, text=True, check=True).stdout
    # A fix's count is how often it was learned plus how often it was
    # advised: learned in a, advised and learned again in b, advised in c.
    assert rows == "npm install express|4\nnpm ci|1\n"
    advice = run(home, "d", "Bash", {"command": "node app.js"}, error)
    assert "실행: npm install express" in advice and "\n- 다른 해결 방법: 실행: npm ci; 그다음: node app.js\n" in advice
