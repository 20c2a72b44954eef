"""The README, run as a newcomer runs it: every ```sh block, in the order
the README gives them, from a folder that is this checkout, with a HOME
of its own and the built dist/. A block runs in bash with `set -e`, where
the block before it left off (its folder, its exported variables), so a
mistyped command or flag fails the test. A ```sql block is typed into the
sqlite3 shell the ```sh block just before it opens; a comment line right
under a statement is what that statement prints, and must be printed.

A block that cannot run here says so, and why, in the README's source,
on the line before it: `<!-- readme-test: skip REASON -->` (the published
packages, the network, a managed PostgreSQL). Every other ```sh, ```sql
and ```python block runs. `<!-- readme-test: not as root -->` marks the
block from which on a reader must not be root (initdb refuses): when the
tests run as root, that block and those after it run as nobody, with the
HOME handed over. The tables the README draws from the code (the hooks
errkb install writes) are checked against what it writes."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CLAUDE, ROOT, folder_for_others, runner
from test_hub import NOBODY, PG_BIN

README = ROOT / "README.md"
RUNNABLE = {"sh", "sql", "python"}
MARK = re.compile(r"<!-- readme-test: (?:skip (?P<reason>\S.*?)|(?P<not_root>not as root)) -->")


def blocks(text):
    """The fenced code blocks: [{line, language, code, skip, not_root}],
    `skip` the reason the comment before the block gives, or None."""
    found = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^( *)```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        indent, language = len(fence.group(1)), fence.group(2)
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        mark = MARK.search(before)
        found.append({"line": i + 1, "language": language,
                      "code": "\n".join(line[indent:] for line in lines[i + 1:end]),
                      "skip": mark.group("reason") if mark else None,
                      "not_root": bool(mark and mark.group("not_root"))})
        i = end + 1
    return found


def expected_output(sql):
    """The comment lines right under a statement (no blank line between):
    what the statements print, in order."""
    expected, after_statement = [], False
    for line in sql.split("\n"):
        if line.startswith("-- ") and after_statement:
            expected.append(line[3:])
        else:
            after_statement = bool(line.strip()) and not line.startswith("--")
    return expected


def test_the_readme_parses_into_blocks_that_run_or_say_why_not():
    found = blocks(README.read_text())
    assert sum(b["language"] == "sh" and not b["skip"] for b in found) >= 8
    skipped = [b for b in found if b["skip"]]
    assert all(b["language"] in RUNNABLE for b in skipped), "a skip mark on a block that never runs"
    assert len(skipped) <= 6, [b["line"] for b in skipped]  # few: the rest runs
    for i, block in enumerate(found):
        if block["language"] == "sql" and not block["skip"]:
            opener = found[i - 1]
            assert opener["language"] == "sh" and not opener["skip"], f"README.md:{block['line']}"
            assert re.match(r"sqlite3 [^'\"]*(-cmd (\"[^\"]*\"|'[^']*') ?)+$", opener["code"].split("\n")[-1]), \
                f"README.md:{opener['line']}: the sqlite3 shell the SQL below it is typed into"
        if block["language"] == "python":
            assert block["skip"], f"README.md:{block['line']}: a python block runs nowhere: mark it"


def test_expected_output_is_the_comments_under_statements():
    sql = "-- what it does\n.read x.sql\n-- wal\n\n-- a note\nSELECT 1;\n-- 1\nSELECT 2; -- two\n-- 2\n"
    assert expected_output(sql) == ["wal", "1", "2"]


@pytest.fixture
def reader(tmp_path):
    """This checkout, as the folder the commands run from, and a HOME of
    the reader's own, with Rust, the Claude Code client and the system's
    tools on PATH, and nothing of errkb. What the commands write lands in
    that HOME, dist/ and target/: the checkout is otherwise left as it was.
    (As root, in a folder nobody can reach too: see `not as root`.)"""
    base = tmp_path
    if os.geteuid() == 0:
        base = folder_for_others("errkb-readme-")
        base.chmod(0o755)
    home = base / "home"
    home.mkdir()
    cargo = shutil.which("cargo")
    assert cargo, "cargo is not on PATH"
    path = [str(Path(cargo).parent), str(CLAUDE.parent), "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"HOME": str(home), "PATH": ":".join(path), "LANG": "C.UTF-8", "USER": "reader",
           "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    # rustup's and cargo's own folders stay where they are (only HOME is new)
    real_home = Path(os.path.expanduser("~"))
    for name, default in (("RUSTUP_HOME", real_home / ".rustup"), ("CARGO_HOME", real_home / ".cargo")):
        if os.environ.get(name) or default.is_dir():
            env[name] = os.environ.get(name) or str(default)
    state = base / "state"
    state.mkdir()
    (state / "env").write_text("".join(f"export {k}={shlex_quote(v)}\n" for k, v in env.items()))
    (state / "cwd").write_text(str(ROOT))
    before = git_status()
    reader = {"home": home, "env": env, "state": state, "as": []}
    yield reader
    stop_servers(home, reader["as"])
    if base != tmp_path:
        shutil.rmtree(base, ignore_errors=True)
    assert git_status() == before, "the README's commands changed the checkout"


def stop_servers(home, as_user):
    """Stop any PostgreSQL server the README's commands left running in
    HOME (a block that failed before its `pg_ctl stop`)."""
    for pid in home.rglob("postmaster.pid"):
        pg_ctl = PG_BIN / "pg_ctl" if PG_BIN else "pg_ctl"
        subprocess.run([*as_user, str(pg_ctl), "-D", str(pid.parent), "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=60)


def not_as_root(reader):
    """From here on, the reader is nobody, with the HOME (and the state
    the blocks pass on) handed over."""
    if os.geteuid() != 0 or reader["as"]:
        return
    for folder in (reader["home"], reader["state"]):
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(folder)], check=True)
    reader["as"] = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def git_status():
    return subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--ignored"], capture_output=True,
                          text=True, check=True).stdout


def shlex_quote(value):
    return "'" + value.replace("'", "'\\''") + "'"


def run_block(reader, code, line, stdin_sql=None):
    """Run one ```sh block where the one before it left off; returns its
    output. With `stdin_sql`, its last line is the sqlite3 shell the SQL is
    typed into."""
    state = reader["state"]
    script = code
    if stdin_sql is not None:
        script = f"{code} <<'README_SQL'\n{stdin_sql}\nREADME_SQL"
    (state / "block.sh").write_text(script + "\n")
    # (nobody may not reach the checkout: then from HOME, which no block
    # run as nobody depends on)
    driver = (f'source {state / "env"}\ncd "$(cat {state / "cwd"})" 2>/dev/null || cd "$HOME"\n'
              f'set -e -o pipefail\nsource {state / "block.sh"}\nset +e\n'
              f'export -p > {state / "env"}\npwd > {state / "cwd"}\n')
    proc = subprocess.run([*reader["as"], "bash", "--norc", "--noprofile", "-c", driver], capture_output=True,
                          text=True, env=reader["env"], stdin=subprocess.DEVNULL, timeout=900)
    assert proc.returncode == 0, (f"README.md:{line}: exit {proc.returncode}\n{code}\n"
                                  f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}")
    return proc


@pytest.mark.model   # make demo, make install: the model
@pytest.mark.client  # the plugin, through the real Claude Code client
def test_every_command_of_the_readme_runs_as_written(reader):
    found = blocks(README.read_text())
    ran = 0
    for i, block in enumerate(found):
        if block["skip"] or block["language"] != "sh":
            continue
        if block["not_root"]:
            not_as_root(reader)
        following = found[i + 1] if i + 1 < len(found) else None
        sql = following["code"] if following and following["language"] == "sql" and not following["skip"] else None
        proc = run_block(reader, block["code"], block["line"], stdin_sql=sql)
        ran += 1
        if sql is not None:
            assert proc.stderr == "", f"README.md:{following['line']}: {proc.stderr}"
            printed = proc.stdout.split("\n")
            at = 0
            for expected in expected_output(sql):
                assert expected in printed[at:], (f"README.md:{following['line']}: {expected!r} not printed "
                                                  f"(after line {at} of):\n{proc.stdout}")
                at = printed.index(expected, at) + 1
    assert ran >= 8


def hooks_table(readme, marker):
    """{event: matcher} from the table right under `marker` (an HTML
    comment) in the README: its first two columns, the matcher in
    backticks (`\\|` for |) or none."""
    lines = readme.split(marker, 1)[1].lstrip("\n").split("\n")
    rows = lines[2:next(i for i, line in enumerate(lines) if not line.startswith("|"))]  # past the header
    table = {}
    for row in rows:
        event, matcher = [cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:3]]
        table[event] = None if matcher == "none" else matcher.strip("`").replace("\\|", "|")
    return table


def test_the_hooks_tables_are_what_install_writes(tmp_path):
    """The README's hooks tables, for Claude Code and for Codex: the events
    and matchers `errkb install` writes into ~/.claude/settings.json and
    ~/.codex/hooks.json."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir()
    runner("install", env={"HOME": str(home)}, check=True)
    readme = README.read_text()
    for written, marker in ((home / ".claude" / "settings.json", "<!-- hooks: Claude Code -->"),
                            (home / ".codex" / "hooks.json", "<!-- hooks: Codex -->")):
        hooks = json.loads(written.read_text())["hooks"]
        wrote = {event: group.get("matcher") for event, [group] in hooks.items()}
        assert hooks_table(readme, marker) == wrote, written
