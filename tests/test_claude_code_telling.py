"""What the real Claude Code client's model is told, across hooks and
projects (the one rule, `tellable`): one error seen through `npm run` and
through `node` is one entry whose fix is told once in a session; a
subagent started right after a failure is briefed on that error first; a
repository with a file of the same path sees nothing of another's file
history; another project's fix says where it comes from. The client runs
against the scripted stand-in of the Messages API, in real git checkouts
with real node."""
import json
import os
import shutil
import subprocess

import pytest

from claude_standin import StandIn, context_after, text, tool_use
from conftest import CLAUDE, connection, runner

pytestmark = pytest.mark.client

REPORT_BROKEN = "const rows = [{ amount: 2 }, { amount: 3 }];\nconst total = rows.reduce((a, b) => a + b.amount, 0\n" \
                "console.log('total', total);\n"
REPORT_FIXED = REPORT_BROKEN.replace("b.amount, 0\n", "b.amount, 0)\n")
PACKAGE = {"name": "shop", "version": "1.0.0", "scripts": {"report": "node scripts/report.js"}}
INDEX = "const dayjs = require('dayjs');\nconsole.log(dayjs());\n"
MAIN = "const lodash = require('lodash');\nconsole.log(lodash);\n"
# what a package install would leave: a module folder (no network here)
VENDOR = "#!/bin/sh\nmkdir -p node_modules/$1 && echo 'module.exports = () => 1;' > node_modules/$1/index.js\n"


def checkout(root, name, remote):
    folder = root / name
    (folder / "scripts").mkdir(parents=True)
    (folder / "src").mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    (folder / "package.json").write_text(json.dumps(PACKAGE))
    (folder / "scripts" / "report.js").write_text(REPORT_BROKEN)
    (folder / "src" / "index.js").write_text(INDEX)
    (folder / "src" / "main.js").write_text(MAIN)
    (folder / "vendor.sh").write_text(VENDOR)
    (folder / "vendor.sh").chmod(0o755)
    return folder


def claude(home, project, standin, prompt):
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "ANTHROPIC_BASE_URL": standin.url,
           "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    proc = subprocess.run([str(CLAUDE), "-p", prompt, "--output-format", "json",
                           "--allowedTools", "Bash Read Edit Write Agent"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def bash(id, command):
    return tool_use(id, "Bash", command=command, description="run")


def edit_report(id, project):
    return tool_use(id, "Edit", file_path=f"{project}/scripts/report.js",
                    old_string="b.amount, 0\n", new_string="b.amount, 0)\n")


def told_after(requests, tool_use_id):
    """errkb's texts after the result of `tool_use_id`."""
    _, context = context_after(requests, tool_use_id)
    return "\n".join(part for part in context.split("\n\n")
                     if "hook additional context: " in part or part.startswith(("[Reflexion", "⚠️", "💡")))


def briefing_of(requests, marker):
    head = "SubagentStart hook additional context: "
    for body in requests:
        first = json.dumps(body["messages"][0]["content"], ensure_ascii=False)
        if marker not in first:
            continue
        for message in body["messages"]:
            content = message["content"]
            for t in [content] if isinstance(content, str) else [b.get("text", "") for b in content]:
                if head in t:
                    return t.split(head, 1)[1].split("\n\n", 1)[0].replace("<system-reminder>", "").strip()
    return ""


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    root = tmp_path_factory.mktemp("telling")
    home = root / "home"
    home.mkdir()
    runner("install", env={"HOME": str(home)}, check=True)
    (home / ".reflexion" / "config.json").write_text(json.dumps({"language": "en"}))
    shop = checkout(root, "shop", "git@github.com:acme/shop.git")
    blog = checkout(root, "blog", "https://github.com/acme/blog.git")
    out = {"home": home, "shop": shop, "blog": blog}

    # 1. In the shop: the report fails through npm and is fixed by an
    #    edit; broken again, it fails through node and is fixed the same
    #    way; src/index.js misses dayjs, fixed by installing it.
    teach = {
        "start:TEACH": [bash("toolu_t1", "npm run report")],
        "after:toolu_t1": [edit_report("toolu_t2", shop)],
        "after:toolu_t2": [bash("toolu_t3", "npm run report")],
        "after:toolu_t3": [tool_use("toolu_t4", "Write", file_path=f"{shop}/scripts/report.js",
                                    content=REPORT_BROKEN)],
        "after:toolu_t4": [bash("toolu_t5", "node scripts/report.js")],
        "after:toolu_t5": [edit_report("toolu_t6", shop)],
        "after:toolu_t6": [bash("toolu_t7", "node scripts/report.js")],
        "after:toolu_t7": [bash("toolu_t8", "node src/index.js")],
        "after:toolu_t8": [bash("toolu_t9", "./vendor.sh dayjs")],
        "after:toolu_t9": [bash("toolu_t10", "node src/index.js")],
        "after:toolu_t10": [text("done")],
    }
    with StandIn(teach) as standin:
        claude(home, shop, standin, "TEACH")

    # 2. In the shop again, the report broken again: the same error through
    #    node (advice), the file read (its history: told already), the
    #    edit and rerun; then src/main.js misses lodash and a subagent is
    #    started at once.
    (shop / "scripts" / "report.js").write_text(REPORT_BROKEN)
    again = {
        "start:AGAIN": [bash("toolu_a1", "node scripts/report.js")],
        "after:toolu_a1": [tool_use("toolu_a2", "Read", file_path=f"{shop}/scripts/report.js")],
        "after:toolu_a2": [edit_report("toolu_a3", shop)],
        "after:toolu_a3": [bash("toolu_a4", "node scripts/report.js")],
        "after:toolu_a4": [bash("toolu_a5", "node src/main.js")],
        "after:toolu_a5": [tool_use("toolu_a6", "Agent", description="fix", prompt="HELPER get main.js running",
                                    subagent_type="general-purpose", run_in_background=False)],
        "start:HELPER": [text("looked")],
        "after:toolu_a6": [text("done")],
    }
    with StandIn(again) as standin:
        claude(home, shop, standin, "AGAIN")
        out["again"] = list(standin.requests)

    # 3. In the blog: its own scripts/report.js read (nothing of the
    #    shop's), and dayjs missing there too (the shop's fix, said so).
    (blog / "scripts" / "report.js").write_text(REPORT_BROKEN)
    other = {
        "start:OTHER": [tool_use("toolu_o1", "Read", file_path=f"{blog}/scripts/report.js")],
        "after:toolu_o1": [bash("toolu_o2", "node src/index.js")],
        "after:toolu_o2": [text("done")],
    }
    with StandIn(other) as standin:
        claude(home, blog, standin, "OTHER")
        out["other"] = list(standin.requests)
    yield out
    shutil.rmtree(root, ignore_errors=True)  # an installed errkb is over 100 MB


def test_one_error_through_npm_run_and_node_is_one_entry_told_once(story):
    with connection(story["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        learned = conn.execute("SELECT count(*) FROM learned_errors AS l JOIN error_kb_signatures AS s "
                               "ON s.error_kb_id = l.error_kb_id "
                               "WHERE s.signature LIKE '%missing ) after argument list%'").fetchone()[0]
    assert learned >= 2  # learned through npm run, and through node
    with connection(story["home"] / ".reflexion" / "data" / "reflexion.db") as conn:
        keys = conn.execute("SELECT kb.error_normalized FROM error_kb AS kb "
                            "JOIN error_kb_signatures AS s ON s.error_kb_id = kb.id "
                            "WHERE s.signature LIKE '%missing ) after argument list%'").fetchall()
    assert len(keys) == 1, keys
    requests = story["again"]
    advice = told_after(requests, "toolu_a1")
    assert "b.amount, 0)" in advice, advice
    assert advice.count("b.amount, 0)") == 1, advice  # not again as "another fix"
    # the Read of the file right after: its history is that fix, told already
    assert "b.amount, 0)" not in told_after(requests, "toolu_a2")
    # nothing after the agent's own edit and rerun tells it back
    for later in ("toolu_a3", "toolu_a4", "toolu_a5"):
        assert "b.amount, 0)" not in told_after(requests, later), later


def test_a_subagent_started_after_a_failure_is_briefed_on_it_first(story):
    briefing = briefing_of(story["again"], "HELPER")
    lines = briefing.split("\n")
    assert lines[1].startswith("- Cannot find module 'lodash'"), briefing
    assert "Cannot find module 'dayjs'" in lines[2] and "./vendor.sh dayjs" in lines[3], briefing


def test_another_repository_sees_no_file_history_and_is_told_where_a_fix_comes_from(story):
    requests = story["other"]
    assert told_after(requests, "toolu_o1") == ""
    advice = told_after(requests, "toolu_o2")
    assert "./vendor.sh dayjs" in advice, advice
    assert "another project, github.com/acme/shop" in advice, advice
