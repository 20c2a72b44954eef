"""errkb learn: Claude Code transcripts in the real format (built with
scripts/transcript_corpus.py), imported into a real database."""
import datetime
import json
import sys

import pytest

from conftest import ROOT, connection, runner

sys.path.insert(0, str(ROOT / "scripts"))
from transcript_corpus import Session  # noqa: E402

MISSING = ("Exit code 1\nTraceback (most recent call last):\n  File \"/home/dev/shop/app.py\", line 1, in <module>\n"
           "    import pendulum\nModuleNotFoundError: No module named 'pendulum'")
NODE = "Exit code 1\nnode:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module './utils'"
TOKEN = "ghp_" + "R7bq2mXk9LpT4vWz8NcY6dHs3JfA5gUe1KoI"


def learn(home, *paths):
    proc = runner("--db", str(home / "kb.db"), "learn", *map(str, paths), env={"HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def rows(home, sql, *args):
    with connection(home / "kb.db") as conn:
        return conn.execute(sql, args).fetchall()


def fixes(home):
    return {error: json.loads(resolution) for error, resolution in
            rows(home, "SELECT error_raw, resolution FROM error_kb WHERE resolution IS NOT NULL")}


@pytest.fixture
def projects(tmp_path):
    return tmp_path / "projects"


def test_a_session_teaches_its_fixes_with_what_was_done(tmp_path, projects):
    s = Session()
    s.startup()
    s.prompt("run the app")
    s.bash("python3 app.py", error=MISSING)
    s.bash("ls", "app.py")                                  # looking around: not part of the fix
    s.bash("pip install pendulum", "Successfully installed pendulum-3.0.0")
    s.noise()
    s.bash("python3 app.py", "ok")                          # the related success
    s.bash("node src/index.js", error=NODE)
    s.call("Edit", {"file_path": "/home/dev/shop/src/index.js", "old_string": "require('./utils')",
                    "new_string": "require('./lib/utils')"}, "The file has been updated.")
    s.bash("node src/index.js", "listening")
    s.write(projects)
    out = learn(tmp_path, projects)
    assert out.splitlines()[1:3] == ["1 session, 7 tool calls (2 errors, 0 interrupted), 0 already known",
                                     "2 fixes learned"]
    learned = fixes(tmp_path)
    python = next(f for e, f in learned.items() if "pendulum" in e)
    assert python["commands"] == ["pip install pendulum"] and python["command"] == "python3 app.py"
    node = next(f for e, f in learned.items() if "./utils" in e)
    assert node["edits"] == [{"file": "src/index.js", "before": "require('./utils')",
                              "after": "require('./lib/utils')"}]
    # events keep their original times and Claude Code's ids
    [(ts, tool_use_id)] = rows(tmp_path, "SELECT ts, data ->> '$.toolUseId' FROM events "
                                         "WHERE type = 'tool_error' ORDER BY id LIMIT 1")
    assert ts.startswith("2026-10-01T09:") and tool_use_id.startswith("toolu_")
    # no advice while importing: nothing was searched, nothing counted as a hit
    assert rows(tmp_path, "SELECT count(*) FROM events WHERE type IN ('kb_hit', 'advice')") == [(0,)]


def test_importing_again_adds_nothing_and_a_grown_file_only_its_new_calls(tmp_path, projects):
    s = Session()
    s.bash("python3 app.py", error=MISSING)
    s.bash("pip install pendulum", "ok")
    s.bash("python3 app.py", "ok")
    [file] = s.write(projects)
    learn(tmp_path, projects)
    before = rows(tmp_path, "SELECT count(*) FROM events"), rows(tmp_path, "SELECT use_count FROM error_kb")
    again = learn(tmp_path, projects)
    assert "1 unchanged since the last import" in again and "0 tool calls" in again
    # the session goes on: the same error, the same fix, once more
    s.bash("python3 app.py", error=MISSING)
    s.bash("python3 app.py", "ok")
    file.write_text(s.lines(s.records))
    grown = learn(tmp_path, projects)
    assert "2 tool calls (1 error, 0 interrupted), 3 already known" in grown and "1 fix learned" in grown
    assert rows(tmp_path, "SELECT count(*) FROM events")[0][0] == before[0][0][0] + 2
    assert rows(tmp_path, "SELECT use_count FROM error_kb") == [(before[1][0][0] + 1,)]
    # the same calls seen by a hook first are not imported again either
    hooked = Session(session_id="11111111-2222-3333-4444-555555555555")
    tool_id = hooked.bash("make", error="make: *** No rule to make target 'al'.  Stop.")
    payload = {"session_id": hooked.session_id, "cwd": hooked.cwd, "hook_event_name": "PostToolUseFailure",
               "tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": tool_id,
               "error": "make: *** No rule to make target 'al'.  Stop."}
    runner("--db", str(tmp_path / "kb.db"), "hook", "PostToolUseFailure", stdin=json.dumps(payload),
           env={"HOME": str(tmp_path)})
    hooked.write(projects)
    assert "0 tool calls (0 errors, 0 interrupted), 1 already known" in learn(tmp_path, projects)


def test_a_resumed_sessions_copy_of_earlier_calls_is_not_imported_twice(tmp_path, projects):
    """Older clients resumed a session into a new file, under a new session
    id, repeating the earlier records: the calls count once."""
    s = Session()
    s.bash("python3 app.py", error=MISSING)
    s.bash("pip install pendulum", "ok")
    s.bash("python3 app.py", "ok")
    s.write(projects)
    resumed = Session(session_id="99999999-8888-7777-6666-555555555555")
    resumed.records = [{**r, "sessionId": resumed.session_id} for r in s.records]
    resumed.bash("pytest", "1 passed")
    resumed.write(projects)
    out = learn(tmp_path, projects)
    assert "4 tool calls (1 error, 0 interrupted), 3 already known" in out and "1 fix learned" in out


def test_parallel_calls_are_taken_in_the_order_they_finished(tmp_path, projects):
    s = Session()
    # one turn, two calls: the failing build and a read; then the fix
    s.calls([("Bash", {"command": "npm run build"}, NODE, True),
             ("Read", {"file_path": "/home/dev/shop/src/index.js"}, "1\trequire('./utils')", False)])
    s.call("Edit", {"file_path": "/home/dev/shop/src/index.js", "old_string": "./utils", "new_string": "./lib/utils"},
           "ok")
    s.bash("npm run build", "built")
    s.write(projects)
    learn(tmp_path, projects)
    [fix] = fixes(tmp_path).values()
    assert fix["toolSequence"] == ["Read", "Edit", "Bash"]


def test_subagents_are_streams_of_their_own(tmp_path, projects):
    s = Session()
    s.call("Agent", {"description": "fix", "prompt": "fix it", "subagent_type": "general-purpose"}, "done")
    agent = "a0123456789abcdef"
    s.prompt("fix it", agent=agent)
    s.bash("npm test", error=NODE, agent=agent)
    s.bash("npm test", "ok")                       # the main thread's success: not the subagent's fix
    s.bash("npm install", "added 1 package", agent=agent)
    s.bash("npm test", "ok", agent=agent)          # the subagent's own retry
    # an older client's sidechain: in the session's file, no agentId
    s.bash("cargo build", error="error[E0432]: unresolved import `crate::utils`", sidechain=True)
    s.bash("cargo build", "Finished")              # main thread: not the sidechain's fix
    files = s.write(projects)
    assert any("subagents" in f.relative_to(projects).parts for f in files)
    out = learn(tmp_path, projects)
    assert "1 fix learned" in out
    [fix] = fixes(tmp_path).values()
    assert fix["commands"] == ["npm install"]
    streams = rows(tmp_path, "SELECT DISTINCT data ->> '$.agentId' FROM events ORDER BY 1")
    assert (agent,) in streams and (None,) in streams
    assert any(a and a.startswith("sidechain-") for (a,) in streams)


def test_compaction_interrupts_malformed_lines_and_unknown_records(tmp_path, projects):
    s = Session(version="1.0.98")
    s.bash("python3 app.py", error=MISSING)
    s.compact()                                     # the error is fixed after a compaction
    s.records.append({"type": "a-record-type-from-the-future", "sessionId": s.session_id, "payload": [1, 2]})
    s.bash("pip install pendulum", "ok")
    s.malformed()
    s.bash("python3 app.py", "ok")
    s.bash("npm test", error="[Request interrupted by user for tool use]")
    s.bash("npm test", "ok")
    s.call("Edit", {"file_path": "/x", "old_string": "a", "new_string": "b"},
           "<tool_use_error>String to replace not found in file.\nString: a</tool_use_error>", True)
    s.call("Task", {"description": "d", "prompt": "p", "subagent_type": "executor"}, "done")
    s.write(projects)
    out = learn(tmp_path, projects)
    assert "1 malformed line skipped" in out
    assert "6 tool calls (1 error, 1 interrupted)" in out and "1 fix learned" in out
    assert rows(tmp_path, "SELECT count(*) FROM events WHERE type = 'tool_interrupt'") == [(1,)]
    assert rows(tmp_path, "SELECT data ->> '$.meta.agentType' FROM events WHERE data ->> '$.tool' = 'Task'") == [
        ("executor",)]


def test_secrets_in_transcripts_are_never_stored(tmp_path, projects):
    s = Session()
    s.bash(f"curl -H 'Authorization: token {TOKEN}' https://api.github.com/user",
           error=f"curl: (22) The requested URL returned error: 401 for token {TOKEN}")
    s.call("Edit", {"file_path": "/home/dev/shop/.env.example", "old_string": "GITHUB_TOKEN=",
                    "new_string": f"GITHUB_TOKEN={TOKEN}"}, "ok")
    s.bash(f"curl -H 'Authorization: token {TOKEN}' https://api.github.com/user", "{}")
    s.write(projects)
    out = learn(tmp_path, projects)
    assert "1 fix learned" in out and TOKEN not in out
    for path in tmp_path.glob("kb.db*"):
        assert TOKEN.encode() not in path.read_bytes(), path


def test_a_missing_path_is_a_clear_error(tmp_path):
    proc = runner("--db", str(tmp_path / "kb.db"), "learn", str(tmp_path / "nowhere"), env={"HOME": str(tmp_path)})
    assert proc.returncode != 0 and "nowhere" in proc.stderr


REPORT_ERROR = ("/home/dev/shop/scripts/report.js:3\n  total(,\n        ^\n\nSyntaxError: Unexpected token ','\n"
                "    at internalCompileFunction (node:internal/vm:76:18)\n\nNode.js v20.11.0")
THROUGH_NPM = (f"Exit code 1\n\n> shop@1.0.0 report\n> node scripts/report.js\n\n{REPORT_ERROR}\n"
               "npm error Lifecycle script `report` failed with error:\nnpm error code 1\n"
               "npm error path /home/dev/shop\nnpm error command failed\nnpm error command sh -c node scripts/report.js")


def test_one_edit_fixing_one_error_through_npm_run_or_directly_is_one_fix(tmp_path, projects):
    """The same node error, met through `npm run report` in one session and
    by running the script in another, each fixed by the same edit and a
    rerun: one error, one fix, learned twice in two sessions."""
    edit = {"file_path": "/home/dev/shop/scripts/report.js", "old_string": "total(,", "new_string": "total(1,"}
    start = Session().clock
    for n, (command, error) in enumerate([("npm run report", THROUGH_NPM),
                                          ("node scripts/report.js", f"Exit code 1\n{REPORT_ERROR}")]):
        s = Session(session_id=f"{n + 1:08d}-0000-4000-8000-000000000000", start=start + datetime.timedelta(days=n))
        s.bash(command, error=error)
        s.call("Edit", edit, "The file has been updated.")
        s.bash(command, "report written")
        s.write(projects)
    out = learn(tmp_path, projects)
    assert "2 fixes learned" in out, out
    assert rows(tmp_path, "SELECT count(*) FROM error_kb") == [(1,)]
    [(uid, resolution, learned, sessions)] = rows(
        tmp_path, "SELECT f.uid, f.resolution, c.learned, c.sessions FROM fixes AS f "
                  "JOIN fix_counts AS c ON c.fix_id = f.id AND c.replica = ''")
    assert (learned, sessions) == (2, 2)
    assert json.loads(resolution)["edits"] == [{"file": "scripts/report.js", "before": "total(,", "after": "total(1,"}]
    # both failures were learned as that one fix
    assert rows(tmp_path, "SELECT count(DISTINCT fix_id), count(*) FROM learned_errors") == [(1, 2)]
