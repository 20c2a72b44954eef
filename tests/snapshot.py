"""Snapshot tests: what the agent is shown, and errkb's error messages,
kept once each in tests/snapshots/<name>.txt and compared exactly.

After a deliberate change of wording, `UPDATE_SNAPSHOTS=1 make test-sql`
rewrites the files; review them in the diff like code. The original system's fixed
phrases, which other tests look for, are read from the snapshots too, so
no test holds its own copy of them."""
import os
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def snapshot(name, actual):
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.write_text(actual)
        return
    assert path.exists(), f"no snapshot {path.name}: run with UPDATE_SNAPSHOTS=1 and review it"
    assert actual == path.read_text(), f"differs from tests/snapshots/{path.name}"


def first_line(name):
    return (SNAPSHOTS / f"{name}.txt").read_text().split("\n", 1)[0]


def line_start(name):
    """The fixed words a snapshot's first line starts with (up to the value)."""
    return first_line(name).split(": ", 1)[0] + ": "


# The fixed phrases of each text (in the original system's Korean), as the snapshots
# hold them.
ADVICE_HEAD = first_line("hook-post-tool-use-failure-advice").split("]")[0] + "]"   # same or similar
FILE_HEAD = line_start("hook-file-history")
BASH_HEAD = line_start("hook-bash-warning")
SUBAGENT_HEAD = first_line("hook-subagent-start")
