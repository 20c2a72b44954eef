"""What the two transcript digests share (scripts/real_sessions/digest.py for
Claude Code's transcripts, scripts/codex_sessions/digest.py for Codex CLI's
rollouts): reading a maybe-gzipped file, finding the files, shortening
text, and the command line that digests every file and totals them."""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
from typing import Callable, TextIO

INPUT_WIDTH = 200
RESULT_WIDTH = 300
RESULT_LINES = 3


def open_text(path: str):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "r", encoding="utf-8", errors="replace")


def find_files(paths: list[str], accept: Callable[[str], bool]) -> list[str]:
    """The files named, and those below the folders named whose name
    `accept`s, in a stable order."""
    found: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for name in sorted(files):
                    if accept(name):
                        found.append(os.path.join(root, name))
        else:
            found.append(p)
    return found


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def first_lines(text: str) -> str:
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    joined = " ⏎ ".join(lines[:RESULT_LINES])
    if len(lines) > RESULT_LINES:
        joined += " ⏎ …"
    return shorten(joined, RESULT_WIDTH) if joined else "(empty)"


def main(argv: list[str] | None, doc: str, find: Callable[[list[str]], list[str]],
         digest_file: Callable[[str, int, bool, TextIO], tuple[int, int, int]], what: str, calls: str) -> int:
    """Digest every file found from the command line's paths; `what` names
    the files (in the message when there are none), `calls` the counted
    calls in the total line."""
    ap = argparse.ArgumentParser(description=doc.split("\n", 1)[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--errors-only", action="store_true")
    ap.add_argument("--width", type=int, default=INPUT_WIDTH)
    args = ap.parse_args(argv)
    files = find(args.paths)
    if not files:
        print(f"no {what} found", file=sys.stderr)
        return 1
    tot_files = tot_calls = tot_err = 0
    failed = 0
    for path in files:
        try:
            f, c, e = digest_file(path, args.width, args.errors_only, sys.stdout)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            print(f"=== {path}\n    cannot read: {exc}\n", file=sys.stdout)
            failed += 1
            continue
        tot_files += f
        tot_calls += c
        tot_err += e
    print(f"# {tot_files} files, {tot_calls} {calls}, {tot_err} errors" + (f", {failed} unreadable" if failed else ""))
    return 1 if failed else 0


def run(main_function: Callable[[], int]) -> None:
    """Run a digest's main, quiet when its reader stops reading (`| head`)."""
    try:
        sys.exit(main_function())
    except BrokenPipeError:
        sys.exit(0)
