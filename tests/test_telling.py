"""What may be told, decided once (the `tellable` rule): every hook and
kb_search tell the same fix first; nothing is told twice to one agent in a
session, nor what it did itself; file notes and "the same error" come
from this project, another project's fix says so. Through the runner with
payloads as Claude Code sends them, on real git checkouts."""
import json
import subprocess

import pytest

from conftest import SQL, connection, runner, sqlite


@pytest.fixture
def home(tmp_path):
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def checkout(tmp_path, name, remote=None):
    """A real git checkout (with a remote when given)."""
    folder = tmp_path / "work" / name
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return str(folder)


def send(home, event, session, cwd, tool=None, tool_input=None, error=None, agent=None, use="toolu_01", **extra):
    body = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": cwd,
            "hook_event_name": event, **extra}
    if tool:
        body.update(tool_name=tool, tool_input=tool_input or {}, tool_use_id=use)
    if error is not None:
        body["error"] = error
    if agent:
        body["agent_id"] = agent
    out = runner("hook", event, stdin=json.dumps(body), env={"HOME": str(home), "ERRKB_LANGUAGE": "en"})
    assert out.returncode == 0 and out.stderr == "", out.stderr
    return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"] if out.stdout.strip() else None


def fail(home, session, cwd, command, error, agent=None, use="toolu_f"):
    return send(home, "PostToolUseFailure", session, cwd, "Bash", {"command": command}, error, agent, use)


def ok(home, session, cwd, tool, tool_input, agent=None, use="toolu_s"):
    return send(home, "PostToolUse", session, cwd, tool, tool_input, None, agent, use)


def db(home):
    return home / ".reflexion" / "data" / "reflexion.db"


def rows(home, sql, *args):
    with connection(db(home)) as conn:
        return conn.execute(sql, args).fetchall()


def told(home, session, agent=None):
    """The fixes each advice event of a session says it told, in order:
    (kind, [fix content's first command or edit])."""
    out = []
    for kind, fixes in rows(home, "SELECT data ->> '$.kind', data -> '$.fixes' FROM events "
                                  "WHERE type = 'advice' AND session_id = ? AND "
                                  "coalesce(data ->> '$.agentId', '') = ? ORDER BY id", session, agent or ""):
        out.append((kind, [what(home, uid) for uid in json.loads(fixes)]))
    return out


def what(home, uid):
    [(resolution,)] = rows(home, "SELECT resolution FROM fixes WHERE uid = ?", uid)
    r = json.loads(resolution)
    return (r.get("commands") or [r.get("command")])[0]


YAML = ("Traceback (most recent call last):\n  File \"{cwd}/app.py\", line 1, in <module>\n"
        "    import yaml\nModuleNotFoundError: No module named 'yaml'")


def learn_yaml_fix(home, session, cwd, install):
    """`python3 app.py` fails on the missing yaml module; `install` is run;
    the rerun passes: a fix of `install`, learned in `cwd`."""
    fail(home, session, cwd, "python3 app.py", YAML.format(cwd=cwd))
    ok(home, session, cwd, "Bash", {"command": install})
    ok(home, session, cwd, "Bash", {"command": "python3 app.py"})


def test_every_hook_and_kb_search_tell_the_same_first_fix(home, tmp_path):
    """One error, three fixes: one learned in two sessions of this project,
    one in one session here, one in three sessions of another project. The
    rule's order (this project's first, then the most sessions) puts the
    first one first, and every place that tells a fix tells it first."""
    shop = checkout(tmp_path, "shop", "git@github.com:acme/shop.git")
    blog = checkout(tmp_path, "blog", "git@github.com:acme/blog.git")
    learn_yaml_fix(home, "a1", shop, "pip install pyyaml")
    learn_yaml_fix(home, "a2", shop, "pip install pyyaml")
    learn_yaml_fix(home, "a3", shop, "pip install --user PyYAML")
    for s in ("b1", "b2", "b3"):
        learn_yaml_fix(home, s, blog, "conda install pyyaml")
    assert rows(home, "SELECT count(*) FROM fixes") == [(3,)]
    error = YAML.format(cwd=shop)
    best = "pip install pyyaml"

    # kb_search, asked for this project
    literal = "'" + error.replace("'", "''") + "'"
    first = sqlite(db(home), f"SELECT json_extract(resolution, '$.commands[0]') FROM "
                             f"kb_search({literal}, 'q', NULL, 'github.com/acme/shop')").stdout.strip()
    assert first == best
    # the failure advice
    fail(home, "f", shop, "python3 app.py", error)
    assert told(home, "f")[0][1][0] == best
    # the Bash note before a rerun (the failure was stored before any fix
    # was known: the note is what tells it)
    with connection(db(home)) as conn:
        conn.execute("INSERT INTO events (v, type, ts, session_id, project, project_path, data) "
                     "SELECT v, type, ts, 'p', project, project_path, data FROM events "
                     "WHERE type = 'tool_error' AND session_id = 'f'")
    send(home, "PreToolUse", "p", shop, "Bash", {"command": "python3 app.py"})
    assert told(home, "p")[0] == ("bash", [best])
    # a file's history, on the first Read of the file the error names
    send(home, "PostToolUse", "r", shop, "Read", {"file_path": f"{shop}/app.py"},
         tool_response={"type": "text", "file": {"filePath": f"{shop}/app.py", "content": "import yaml\n"}})
    assert told(home, "r")[0][1][0] == best
    # a subagent's briefing, started right after the main agent failed
    fail(home, "g", shop, "python3 app.py", error)
    send(home, "SubagentStart", "g", shop, agent="sub", agent_type="general-purpose")
    assert told(home, "g", "sub")[0][1][0] == best


def test_the_failure_advice_offers_the_next_fix_once_the_best_was_told(home, tmp_path):
    shop = checkout(tmp_path, "shop", "https://github.com/acme/shop")
    learn_yaml_fix(home, "a1", shop, "pip install pyyaml")
    learn_yaml_fix(home, "a2", shop, "pip install pyyaml")
    learn_yaml_fix(home, "a3", shop, "pip install --user PyYAML")
    learn_yaml_fix(home, "a4", shop, "uv pip install pyyaml")
    error = YAML.format(cwd=shop)
    first = fail(home, "s", shop, "python3 app.py", error, use="t1")
    assert "pip install pyyaml" in first
    # (the next fix is shown too, on one line)
    second = fail(home, "s", shop, "python3 app.py", error, use="t2")
    assert second is not None and "pip install pyyaml" not in second, second
    assert [kind for kind, _ in told(home, "s")] == ["failure", "failure"]
    firsts = [fixes for _, fixes in told(home, "s")]
    assert not set(firsts[0]) & set(firsts[1]), firsts  # nothing told twice
    # all three told: then nothing more is said
    assert fail(home, "s", shop, "python3 app.py", error, use="t3") is None
    # another agent of the session (a subagent) is told from the start
    assert "pip install" in fail(home, "s", shop, "python3 app.py", error, agent="sub", use="t4")


def test_a_fix_the_agent_applied_itself_is_not_told_back(home, tmp_path):
    """The agent fixes an error itself, then runs the command again: the
    note before the rerun says nothing of its own fix."""
    shop = checkout(tmp_path, "shop", "git@github.com:acme/shop.git")
    error = YAML.format(cwd=shop)
    assert fail(home, "s", shop, "python3 app.py", error) is None  # nothing known yet
    ok(home, "s", shop, "Bash", {"command": "pip install pyyaml"})
    ok(home, "s", shop, "Bash", {"command": "python3 app.py"})
    assert rows(home, "SELECT count(*) FROM fixes") == [(1,)]
    assert send(home, "PreToolUse", "s", shop, "Bash", {"command": "python3 app.py"}) is None
    assert fail(home, "s", shop, "python3 app.py", error, use="again") is None
    assert told(home, "s") == []
    # a subagent of the session did not apply it: it is told
    assert "pip install pyyaml" in fail(home, "s", shop, "python3 app.py", error, agent="sub", use="sub")
    # another session is told it
    assert "pip install pyyaml" in fail(home, "t", shop, "python3 app.py", error)


REPORT = ("{cwd}/scripts/report.js:3\n  const total = rows.reduce((a, b) => a + b.amount, 0\n"
          "                                                  ^\n\nSyntaxError: missing ) after argument list")


def learn_report_fix(home, session, cwd):
    fail(home, session, cwd, "node scripts/report.js", REPORT.format(cwd=cwd))
    ok(home, session, cwd, "Edit", {"file_path": f"{cwd}/scripts/report.js",
                                    "old_string": "b.amount, 0\n", "new_string": "b.amount, 0)\n"})
    ok(home, session, cwd, "Bash", {"command": "node scripts/report.js"})


def read(home, session, cwd, path, content):
    return send(home, "PostToolUse", session, cwd, "Read", {"file_path": f"{cwd}/{path}"},
                tool_response={"type": "text", "file": {"filePath": f"{cwd}/{path}", "content": content}})


def test_file_notes_come_from_this_project(home, tmp_path):
    """Two repositories with a scripts/report.js each: reading it in one
    says nothing of the other's; a second clone of the same repository is
    the same project and is told."""
    shop = checkout(tmp_path, "shop", "git@github.com:acme/shop.git")
    blog = checkout(tmp_path, "blog", "git@github.com:acme/blog.git")
    clone = checkout(tmp_path, "shop-2", "https://github.com/acme/shop.git")
    plain = str(tmp_path / "work" / "plain")
    learn_report_fix(home, "s", shop)
    broken = "const rows = [];\n\n  const total = rows.reduce((a, b) => a + b.amount, 0\n"
    assert read(home, "r1", blog, "scripts/report.js", broken) is None
    assert read(home, "r2", plain, "scripts/report.js", broken) is None
    note = read(home, "r3", clone, "scripts/report.js", broken)
    assert note is not None and "missing ) after argument list" in note and "b.amount, 0)" in note


def test_another_projects_fix_says_so_and_its_paths_are_not_offered_here(home, tmp_path):
    shop = checkout(tmp_path, "shop", "git@github.com:acme/shop.git")
    blog = checkout(tmp_path, "blog", "git@github.com:acme/blog.git")
    # a package's fix: useful anywhere, said to be another project's
    fail(home, "s", shop, "node src/index.js", "Error: Cannot find module 'dayjs'\nRequire stack:\n- /x/src/index.js")
    ok(home, "s", shop, "Bash", {"command": "npm install dayjs"})
    ok(home, "s", shop, "Bash", {"command": "node src/index.js"})
    advice = fail(home, "t", blog, "node main.js", "Error: Cannot find module 'lodash'\nRequire stack:\n- /y/main.js")
    assert advice is not None and "npm install dayjs" in advice
    assert "another project, github.com/acme/shop" in advice and "The same error" not in advice
    # a path's fix: another project's path names nothing here
    enoent = "Error: ENOENT: no such file or directory, open '{}'"
    fail(home, "u", shop, "node build.js", enoent.format("out/report.txt"))
    ok(home, "u", shop, "Bash", {"command": "mkdir -p out"})
    ok(home, "u", shop, "Bash", {"command": "node build.js"})
    assert fail(home, "v", blog, "node build.js", enoent.format("data/in.csv")) is None
    # the same path: told, as another project's
    same = fail(home, "w", blog, "node build.js", enoent.format("out/report.txt"))
    assert same is not None and "mkdir -p out" in same and "another project" in same
    # in its own project it is the same error, said so
    here = fail(home, "x", shop, "node build.js", enoent.format("out/report.txt"))
    assert "The same error was fixed before" in here and "another project" not in here


def test_the_briefing_puts_the_current_error_and_known_fixes_first(home, tmp_path):
    """The main agent has just failed with `No module named 'requests'`; a
    fix of the similar `yaml` error is known. A subagent started now is
    told that first, with the error it was learned from; older errors
    without a fix come after, and the count of those left out is right."""
    shop = checkout(tmp_path, "shop", "git@github.com:acme/shop.git")
    learn_yaml_fix(home, "a", shop, "pip install pyyaml")
    older = ["make: *** No rule to make target 'dist'.  Stop.",
             "./deploy.sh: line 3: kubectl: command not found",
             "fatal: not a git repository (or any of the parent directories): .git",
             "error: externally-managed-environment",
             "Error: listen EADDRINUSE: address already in use :::3000",
             "psql: error: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory"]
    for n, error in enumerate(older):
        fail(home, "b", shop, f"step{n}", error, use=f"o{n}")
    # (one error, several times: one entry)
    fail(home, "b", shop, "step0", older[0], use="again")
    fail(home, "b", shop, "python3 app.py", YAML.format(cwd=shop).replace("yaml", "requests"), use="now")
    briefing = send(home, "SubagentStart", "b", shop, agent="sub", agent_type="general-purpose")
    lines = briefing.split("\n")
    assert lines[1].startswith("- ModuleNotFoundError: No module named 'requests'"), briefing
    assert "No module named 'yaml'" in lines[2] and "pip install pyyaml" in lines[3], briefing
    assert len(briefing) <= 500
    more = [l for l in lines if l.startswith("(") and "more error" in l]
    assert more and (more[0] == "(1 more error)" or more[0].endswith("more errors)")), briefing


def test_a_tests_expectation_met_in_another_project_is_not_told(home, tmp_path):
    """An assertion is this code's own logic; once masked, `assert <V> in
    <V>` is every such assertion. Another project's fix of one is no fix
    here; in its own project it is still told."""
    shop = checkout(tmp_path, "shop", "git@github.com:acme/shop.git")
    blog = checkout(tmp_path, "blog", "git@github.com:acme/blog.git")
    failed = ("FAILED tests/test_cli.py::test_help - AssertionError: assert 'usage' in 'Usage: cli'\n"
              "E       AssertionError: assert 'usage' in 'Usage: cli'")
    fail(home, "a", shop, "uv run pytest", failed)
    ok(home, "a", shop, "Bash", {"command": "uv pip install -e ."})
    ok(home, "a", shop, "Bash", {"command": "uv run pytest"})
    assert rows(home, "SELECT count(*) FROM fixes") == [(1,)]
    other = failed.replace("test_cli.py::test_help", "test_api.py::test_get").replace("'usage' in 'Usage: cli'",
                                                                                     "'id' in '{}'")
    assert fail(home, "b", blog, "uv run pytest", other) is None
    here = fail(home, "c", shop, "uv run pytest", failed)
    assert here is not None and "uv pip install -e ." in here


def test_a_read_done_again_with_a_window_is_told_for_that_file_only(home, tmp_path):
    """A Read too large to take whole, read again with an offset and a
    limit: that fix is the same call on that file. Told for the same error
    on another file (a JSONL output whose lines may be too long for any
    window), it would name a file that has nothing to do with it."""
    shop = checkout(tmp_path, "shop")
    too_large = ("File content ({n} tokens) exceeds maximum allowed tokens (25000). Please use offset and limit "
                 "parameters to read specific portions of the file, or use the GrepTool to search for specific "
                 "content.")
    ops = f"{shop}/src/ops.rs"
    send(home, "PostToolUseFailure", "a", shop, "Read", {"file_path": ops}, too_large.format(n=28822), use="r1")
    ok(home, "a", shop, "Read", {"file_path": ops, "offset": 1, "limit": 200}, use="r2")
    [(resolution,)] = rows(home, "SELECT resolution FROM fixes")
    assert json.loads(resolution)["changed"] == ["offset 1, limit 200"]
    other = send(home, "PostToolUseFailure", "b", shop, "Read", {"file_path": f"{shop}/out/run.jsonl"},
                 too_large.format(n=30000), use="r3")
    assert other is None
    same = send(home, "PostToolUseFailure", "c", shop, "Read", {"file_path": ops}, too_large.format(n=31000), use="r4")
    assert same is not None and "offset 1, limit 200" in same


def test_told_and_applied_fixes_are_compared_byte_for_byte(tmp_path):
    """What was told and applied is compared as SQL compares text: the
    same bytes. Through the sqlite3 shell with the extension: uids and an
    agent id that are not UTF-8 (two different bytes that a lossy reading
    would both turn into U+FFFD) are different values."""
    kb = tmp_path / "kb.db"
    sqlite(kb, f".read {SQL / 'schema.sql'}")
    sqlite(kb,
           "INSERT INTO error_kb (id, ts, error_normalized, resolution) VALUES (1, 't', 'e', '{}'), (2, 't', 'f', '{}')",
           "INSERT INTO fixes (id, uid, error_kb_id, resolution, fix_key, ts) "
           "VALUES (1, CAST(X'ff' AS TEXT), 1, 'r1', 'k1', 't'), (2, 'u2', 1, 'r2', 'k2', 't'), "
           "(3, 'u3', 1, 'r3', CAST(X'fe' AS TEXT), 't')",
           "INSERT INTO fix_counts (fix_id, replica, learned) VALUES (1, '', 3), (2, '', 2), (3, '', 1)",
           # session s1 was told uid X'fe' (not fix 1's X'ff') and another error's fix whose content
           # is fix 3's
           "INSERT INTO fixes (id, uid, error_kb_id, resolution, fix_key, ts) VALUES (4, 'u4', 2, 'r4', "
           "CAST(X'fe' AS TEXT), 't')",
           "INSERT INTO events (id, type, ts, session_id, data) VALUES "
           "(1, 'advice', 't', 's1', '{\"fixes\":[\"' || CAST(X'fe' AS TEXT) || '\",\"u4\"]}'), "
           # in session s2, an agent whose id is the byte X'ff' applied fix 2
           "(2, 'tool_error', 't', 's2', '{\"agentId\":\"' || CAST(X'ff' AS TEXT) || '\"}')",
           "INSERT INTO learned_errors (event_id, error_kb_id, fix_id, session_id, ts) VALUES (2, 1, 2, 's2', 't')")
    told = sqlite(kb, "SELECT group_concat(fix_id) FROM tellable(1, 's1')").stdout.split()
    # fix 1 stays (another uid), fix 3 goes (its content was told)
    assert told == ["1,2"]
    # the agent X'ff' applied fix 2 itself; the agent X'fe' did not
    assert sqlite(kb, "SELECT group_concat(fix_id) FROM tellable(1, 's2', CAST(X'ff' AS TEXT))").stdout.split() \
        == ["1,3"]
    assert sqlite(kb, "SELECT group_concat(fix_id) FROM tellable(1, 's2', CAST(X'fe' AS TEXT))").stdout.split() \
        == ["1,2,3"]


# The rule, written as SQL for this test alone: how far a fix is trusted
# (this machine one voice, each teammate one more; never weak, never once
# it failed here more than it worked, never with more voices against than
# for) and the order (own, this project, support, sessions, uses, newest).
RULE_AS_SQL = """
WITH standing AS (
  SELECT f.id AS fix_id, f.weak AS weak,
         coalesce(c.learned > 0 OR c.helped > 0, 0) AS own,
         coalesce(t.votes_for, 0) + coalesce(c.learned + c.helped > 0 AND c.failed <= c.learned + c.helped, 0)
           AS support,
         coalesce(c.failed > c.learned + c.helped, 0) AS failed_here,
         coalesce(t.votes_against, 0) + coalesce(c.failed > c.learned + c.helped, 0) AS against,
         coalesce(c.sessions, 0) + coalesce(t.members, 0) AS sessions,
         coalesce(c.learned + c.advised, 0) + coalesce(t.users, 0) AS uses
  FROM fixes AS f
  LEFT JOIN fix_counts AS c ON c.fix_id = f.id AND c.replica = ''
  LEFT JOIN team_standing AS t ON t.fix_id = f.id),
fix AS (
  SELECT f.error_kb_id, f.id AS fix_id, f.uid, s.own, s.support, s.sessions, s.uses, f.ts,
         (SELECT min(p.project) FROM fix_projects AS p WHERE p.fix_id = f.id) AS any_project,
         EXISTS (SELECT 1 FROM fix_projects AS p WHERE p.fix_id = f.id AND p.project = 'proj-a') AS here
  FROM fixes AS f JOIN standing AS s ON s.fix_id = f.id
  WHERE NOT s.weak AND NOT s.failed_here AND s.against <= s.support
  UNION ALL
  SELECT kb.id, NULL, 'kb:' || kb.id, 1, 0, 0, kb.use_count, kb.ts, NULL, 1
  FROM error_kb AS kb WHERE NOT EXISTS (SELECT 1 FROM fixes AS f WHERE f.error_kb_id = kb.id)
    AND kb.resolution IS NOT NULL)
SELECT error_kb_id, fix_id, uid, here OR any_project IS NULL,
       CASE WHEN NOT here AND any_project IS NOT NULL THEN any_project END, own, support, sessions, uses, ts
FROM fix ORDER BY own DESC, here OR any_project IS NULL DESC, support DESC, sessions DESC, uses DESC, ts DESC
"""


@pytest.mark.parametrize("seed", range(6))
def test_tellable_weighs_and_orders_fixes_as_the_rule_says(tmp_path, seed):
    """tellable (and fix_standing) against the rule written as SQL, on many
    fixes whose counts, team votes, weakness and projects are drawn at
    random: the same fixes advised, in the same order, with the same
    standing. (Each fix has its own time, so the order has no ties.)"""
    import random
    rng = random.Random(seed)
    kb = tmp_path / "kb.db"
    sqlite(kb, f".read {SQL / 'schema.sql'}")
    statements = []
    for error in range(1, 7):
        # errors 4 to 6 are an older writer's rows: no fixes row, each its
        # own fix (its uses may be unknown)
        uses = rng.choice([str(rng.randint(0, 9)), "NULL"])
        statements.append(f"INSERT INTO error_kb (id, ts, error_normalized, resolution, use_count) "
                          f"VALUES ({error}, '2026-01-0{error}', 'e{error}', '{{}}', {uses})")
    for fix in range(1, 61):
        error = rng.randint(1, 3)
        statements.append(f"INSERT INTO fixes (id, uid, error_kb_id, resolution, fix_key, weak, ts) VALUES "
                          f"({fix}, 'u{fix}', {error}, 'r', 'k{fix}', {int(rng.random() < 0.15)}, "
                          f"'2026-02-{fix:02d}')")
        if rng.random() < 0.7:
            learned, helped, failed = rng.randint(0, 2), rng.randint(0, 2), rng.randint(0, 4)
            statements.append(f"INSERT INTO fix_counts (fix_id, replica, learned, sessions, advised, helped, failed) "
                              f"VALUES ({fix}, '', {learned}, {rng.randint(0, 3)}, {rng.randint(0, 3)}, {helped}, "
                              f"{failed})")
        if rng.random() < 0.2:
            # a teammate's own counts are not a voice here (team_standing is)
            statements.append(f"INSERT INTO fix_counts (fix_id, replica, learned) VALUES ({fix}, 'r1', 5)")
        if rng.random() < 0.5:
            statements.append(f"INSERT INTO team_standing (fix_id, votes_for, votes_against, members, users) "
                              f"VALUES ({fix}, {rng.randint(0, 3)}, {rng.randint(0, 3)}, {rng.randint(0, 4)}, "
                              f"{rng.randint(0, 4)})")
        for project in rng.sample(["proj-a", "proj-b", "proj-c"], rng.randint(0, 2)):
            statements.append(f"INSERT INTO fix_projects (fix_id, project) VALUES ({fix}, '{project}')")
    sqlite(kb, *statements)
    expected = sqlite(kb, RULE_AS_SQL).stdout
    assert expected.count("\n") > 10
    told = sqlite(kb, "SELECT error_kb_id, fix_id, uid, this_project, elsewhere, own, support, sessions, uses, ts "
                      "FROM tellable('[1,2,3,4,5,6]', NULL, NULL, 'proj-a') ORDER BY rank").stdout
    assert told == expected
    standing = ("SELECT f.id, s.own, s.support, s.against, s.sessions, s.uses, s.advisable "
                "FROM fixes AS f JOIN fix_standing(f.id) AS s ORDER BY f.id")
    oracle = RULE_AS_SQL.split("fix AS (")[0].rstrip().rstrip(",") + (
        " SELECT fix_id, own, support, against, sessions, uses, NOT weak AND NOT failed_here AND against <= support "
        "FROM standing ORDER BY fix_id")
    assert sqlite(kb, standing).stdout == sqlite(kb, oracle).stdout


def test_a_fix_whose_counts_errkb_never_writes_is_not_told(tmp_path):
    """Counts errkb never writes (a hand-edited database: a real, a text, a
    negative count, a weak mark that is not 0 or 1) leave a fix's standing
    unknown: it is not told, and fix_standing says it is not advisable.
    The same fix with whole counts is."""
    kb = tmp_path / "kb.db"
    sqlite(kb, f".read {SQL / 'schema.sql'}")
    sqlite(kb, "INSERT INTO error_kb (id, ts, error_normalized, resolution) VALUES (1, 't', 'e', '{}')",
           *[f"INSERT INTO fixes (id, uid, error_kb_id, resolution, fix_key, ts) VALUES ({i}, 'u{i}', 1, 'r', 'k{i}', "
             f"'2026-01-0{i}')" for i in range(1, 7)],
           "INSERT INTO fix_counts (fix_id, replica, learned) VALUES (1, '', 1), (2, '', 1), (3, '', 1), (4, '', 1), "
           "(5, '', -1), (6, '', 1)",
           "UPDATE fixes SET weak = 0.5 WHERE id = 2",
           "UPDATE fix_counts SET failed = 'x' WHERE fix_id = 3",
           "UPDATE fix_counts SET helped = 0.5 WHERE fix_id = 4",
           "INSERT INTO team_standing (fix_id, votes_for, votes_against) VALUES (6, 1, 'many')")
    told = sqlite(kb, "SELECT group_concat(fix_id) FROM tellable(1)").stdout.split()
    assert told == ["1"]
    standing = sqlite(kb, "SELECT group_concat(s.advisable) FROM fixes AS f JOIN fix_standing(f.id) AS s "
                          "ORDER BY f.id").stdout.split()
    assert standing == ["1,0,0,0,0,0"]
