#!/usr/bin/env python3
"""Check the labels of the Codex corpus against its rollout files.

Usage:
    python3 scripts/codex_sessions/check_labels.py [CORPUS]

CORPUS defaults to tests/fixtures/codex_sessions.  Standard library only.

For every source folder (``<owner>__<repo>/``) and its ``labels/<source>.jsonl``:

* every failed call (a call ``digest.py`` marks ERROR) of every rollout in the
  folder has exactly one label, and every label names a failed call of the
  file it names;
* the label's ``source``, ``file``, ``session`` and ``tool`` match the rollout
  (``agent`` is null);
* every call id in ``fixed_by`` and ``decisive`` exists in the same file and
  was made after the failed call.  A ``fixed_by`` call that is itself a
  failed call is listed as a NOTE for a second look (it can be right: a fix
  that worked inside a command whose ``rg`` then found nothing, a commit that
  went through in a command whose push then failed), not as a problem;
* the fields follow LABELS.md: ``kind`` is one of the kinds, ``fixed`` is
  yes/no/unclear for ``error`` and null otherwise, ``fixed_by`` is non-empty
  exactly when fixed is yes, ``useful`` is a boolean exactly when fixed is
  yes, ``decisive`` is empty unless fixed is yes, ``why`` is one line.

Prints each problem (and note) and a tally; exits 1 when there is a problem.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import digest  # noqa: E402

KINDS = {"error", "rejected", "denied", "hook_block", "sandbox_block", "tool_use_error", "interrupt", "not_an_error"}
FIELDS = ["source", "file", "session", "agent", "error", "tool", "kind", "fixed", "fixed_by", "decisive", "useful", "why"]


def main(argv: list[str]) -> int:
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "codex_sessions")
    root = os.path.normpath(root)
    problems: list[str] = []
    notes: list[str] = []
    tally = {"kind": Counter(), "fixed": Counter(), "useful": Counter()}
    n_labels = n_failed = n_files = 0

    sources = sorted(d for d in os.listdir(root) if "__" in d and os.path.isdir(os.path.join(root, d)))
    label_files = sorted(f[:-6] for f in os.listdir(os.path.join(root, "labels")) if f.endswith(".jsonl"))
    for extra in sorted(set(label_files) - set(sources)):
        problems.append(f"labels/{extra}.jsonl: no source folder {extra}/")

    for source in sources:
        folder = os.path.join(root, source)
        rollouts = {}
        for path in digest.find_rollouts([folder]):
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            rollouts[rel] = digest.read_rollout(path)
        n_files += len(rollouts)
        failed = {}  # (file, call id) -> Call
        for rel, r in rollouts.items():
            for c in r.calls:
                if c.verdict is not None and c.verdict.status == "ERROR":
                    failed[(rel, c.call_id)] = c
        n_failed += len(failed)

        label_path = os.path.join(root, "labels", source + ".jsonl")
        labels = []
        if os.path.exists(label_path):
            with open(label_path, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    try:
                        labels.append((n, json.loads(line)))
                    except json.JSONDecodeError as exc:
                        problems.append(f"labels/{source}.jsonl:{n}: not JSON ({exc})")
        elif failed:
            problems.append(f"{source}: {len(failed)} failed calls but no labels/{source}.jsonl")

        seen: Counter = Counter()
        for n, lab in labels:
            where = f"labels/{source}.jsonl:{n}"
            n_labels += 1
            if list(lab) != FIELDS:
                problems.append(f"{where}: fields {list(lab)} are not {FIELDS}")
            if lab.get("source") != source:
                problems.append(f"{where}: source {lab.get('source')!r} is not {source!r}")
            rel = lab.get("file")
            r = rollouts.get(rel)
            if r is None:
                problems.append(f"{where}: file {rel!r} is not a rollout of {source}/")
                continue
            key = (rel, lab.get("error"))
            seen[key] += 1
            call = failed.get(key)
            if call is None:
                known = any(c.call_id == lab.get("error") for c in r.calls)
                problems.append(f"{where}: {lab.get('error')} is {'not a failed call' if known else 'no call'} in {rel}")
                continue
            if lab.get("session") != (r.sessions[0] if r.sessions else None):
                problems.append(f"{where}: session {lab.get('session')!r} is not the file's {r.sessions[:1]}")
            if lab.get("agent") is not None:
                problems.append(f"{where}: agent should be null")
            if lab.get("tool") != call.name:
                problems.append(f"{where}: tool {lab.get('tool')!r} is not the call's {call.name!r}")

            kind, fixed, useful = lab.get("kind"), lab.get("fixed"), lab.get("useful")
            fixed_by, decisive = lab.get("fixed_by"), lab.get("decisive")
            tally["kind"][kind] += 1
            if kind not in KINDS:
                problems.append(f"{where}: unknown kind {kind!r}")
            if not isinstance(fixed_by, list) or not isinstance(decisive, list):
                problems.append(f"{where}: fixed_by and decisive must be lists")
                continue
            if kind == "error":
                tally["fixed"][fixed] += 1
                if fixed not in ("yes", "no", "unclear"):
                    problems.append(f"{where}: fixed {fixed!r} is not yes/no/unclear")
                if fixed == "yes":
                    tally["useful"][useful] += 1
                    if not fixed_by:
                        problems.append(f"{where}: fixed yes with no fixed_by")
                    if not isinstance(useful, bool):
                        problems.append(f"{where}: useful must be true/false when fixed is yes")
                else:
                    if fixed_by or decisive:
                        problems.append(f"{where}: fixed {fixed} but fixed_by/decisive not empty")
                    if useful is not None:
                        problems.append(f"{where}: useful must be null when fixed is {fixed}")
            else:
                if fixed is not None or useful is not None or fixed_by or decisive:
                    problems.append(f"{where}: kind {kind} must have fixed, useful null and no fixed_by/decisive")

            order = [c.call_id for c in r.calls]
            pos = order.index(call.call_id)
            for field in ("fixed_by", "decisive"):
                for cid in lab[field]:
                    if cid not in order:
                        problems.append(f"{where}: {field} {cid} is no call in {rel}")
                        continue
                    other = r.calls[order.index(cid)]
                    if order.index(cid) <= pos:
                        problems.append(f"{where}: {field} {cid} was made before the failed call")
                    if field == "fixed_by" and other.verdict is None:
                        problems.append(f"{where}: fixed_by {cid} has no output")
                    elif field == "fixed_by" and other.verdict.status == "ERROR":
                        notes.append(f"{where}: fixed_by {cid} is itself a failed call")
            why = lab.get("why")
            if not isinstance(why, str) or not why.strip() or "\n" in why:
                problems.append(f"{where}: why must be one non-empty line")

        for key, count in seen.items():
            if count > 1:
                problems.append(f"{source}: {key[1]} in {key[0]} has {count} labels")
        for key in failed:
            if key not in seen:
                problems.append(f"{source}: failed call {key[1]} in {key[0]} has no label")

    for p in problems:
        print("PROBLEM", p)
    for n in notes:
        print("NOTE", n)
    print(f"{len(sources)} sources, {n_files} rollouts, {n_failed} failed calls, {n_labels} labels")
    print("kind: " + ", ".join(f"{k} {v}" for k, v in tally["kind"].most_common()))
    print("fixed (kind error): " + ", ".join(f"{k} {v}" for k, v in tally["fixed"].most_common()))
    print("useful (fixed yes): " + ", ".join(f"{k} {v}" for k, v in tally["useful"].most_common()))
    print("OK" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
