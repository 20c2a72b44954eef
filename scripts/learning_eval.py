#!/usr/bin/env python3
"""Learning precision on real Claude Code and Codex sessions (make eval).

    python3 scripts/learning_eval.py [--write docs/EVAL.md] [--details] [--corpus claude|codex]

`errkb learn` reads the labelled real sessions (tests/fixtures/real_sessions,
gunzipped into a temporary folder laid out as ~/.claude/projects; and
tests/fixtures/codex_sessions, the Codex CLI's rollouts, laid out as
~/.codex/sessions) into an empty knowledge base, one per corpus. Every error it learned a fix for (`learned_errors`:
the error, the success that showed it fixed, the steps kept) is judged
against the labels written by hand from the transcripts alone
(tests/fixtures/real_sessions/LABELS.md):

- wrong: what was learned is not a fix of that error: the failure is not
  the tool's own error (a rejection, a denial …), it was not fixed, or the
  success taken for its fix is not one the label names;
- correct and useful: the right success, a fix the label calls useful, and
  the fix holds a decisive step (or, when the retry's own call was the
  change, says what changed);
- correct but useless: the right success, but a fix the label calls
  useless, or one that lost the decisive step.

Weak fixes (the same command with nothing changed) are stored but never
advised, and are counted apart. A clearly fixed error (labelled a fixed
error) with no fix learned is a miss.

Both corpora are judged by the same rules. In the Codex corpus a call is
named by its `call_id`; the edits of one `apply_patch` are stored as
`<call_id>`, `<call_id>:2` … (each hunk an edit), and count as that call.

The Claude Code sources are reported in two parts: those the learning
rules were written on, and those held out from rule-writing
(tests/fixtures/real_sessions/held_out.txt), whose transcripts and labels
were not read while the rules were written. The Codex corpus is one part:
its sources were all read while the rules were written.
"""
import argparse
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "dist" / "errkb"
SESSIONS = ROOT / "tests" / "fixtures" / "real_sessions"
CODEX_SESSIONS = ROOT / "tests" / "fixtures" / "codex_sessions"
CORPORA = {"claude": SESSIONS, "codex": CODEX_SESSIONS}


def held_out():
    """The sources held out from rule-writing."""
    text = (SESSIONS / "held_out.txt").read_text()
    return {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}


def sources_of_calls():
    """tool_use_id → source, for every call of every transcript."""
    out = {}
    for gz in sorted(SESSIONS.rglob("*.jsonl.gz")):
        source = gz.relative_to(SESSIONS).parts[0]
        with gzip.open(gz, "rt", encoding="utf-8", errors="replace") as f:
            for line in f:
                if '"tool_use"' not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                message = record.get("message") if isinstance(record, dict) else None
                for block in (message or {}).get("content") or []:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        out[block.get("id")] = source
    return out


def labels(sessions=SESSIONS):
    out = {}
    for path in sorted((sessions / "labels").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                label = json.loads(line)
                out[label["error"]] = label
    return out


def unpack(into, sessions=SESSIONS):
    """The transcripts, gunzipped, as ~/.claude/projects/<source>/… (or
    ~/.codex/sessions/<source>/…)."""
    for gz in sorted(sessions.rglob("*.jsonl.gz")):
        rel = gz.relative_to(sessions).with_suffix("")  # drop .gz
        dest = into / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(gz, "rb") as src, open(dest, "wb") as out:
            shutil.copyfileobj(src, out)


def learn(work, sessions=SESSIONS):
    projects = work / "projects"
    unpack(projects, sessions)
    db = work / "kb.db"
    proc = subprocess.run([str(RUNNER), "--db", str(db), "learn", str(projects)], capture_output=True, text=True,
                          env={**os.environ, "HOME": str(work)})
    if proc.returncode != 0:
        sys.exit(f"errkb learn failed: {proc.stderr}")
    return db, proc.stdout


def learned_pairs(db):
    """(error tool_use_id, success tool_use_id, [step tool_use_ids], weak, resolution)"""
    with sqlite3.connect(db) as conn:
        ids = dict(conn.execute("SELECT id, data ->> '$.toolUseId' FROM events"))
        rows = conn.execute("SELECT l.event_id, l.success_event_id, l.steps, f.weak, f.resolution "
                            "FROM learned_errors AS l JOIN fixes AS f ON f.id = l.fix_id").fetchall()
    pairs = []
    for event_id, success_id, steps, weak, resolution in rows:
        pairs.append((call(ids.get(event_id)), call(ids.get(success_id)),
                      [call(ids.get(s)) for s in json.loads(steps or "[]")], bool(weak), json.loads(resolution)))
    return pairs


def call(tool_use_id):
    """The call an event is of: a Codex patch's later edits (`<call_id>:2`
    …) are of the patch's call."""
    if tool_use_id and ":" in tool_use_id and tool_use_id.rsplit(":", 1)[1].isdigit():
        return tool_use_id.rsplit(":", 1)[0]
    return tool_use_id


def judge(pair, label):
    """'wrong', 'useful' or 'useless', and why."""
    error, success, steps, weak, fix = pair
    if label is None:
        return "wrong", "no label: not a failed call of the corpus"
    if label["kind"] != "error":
        return "wrong", f"not the tool's own error ({label['kind']})"
    if label["fixed"] != "yes":
        return "wrong", f"not fixed ({label['fixed']})"
    if success not in label["fixed_by"]:
        return "wrong", "another success than the one that fixed it"
    decisive = set(label["decisive"])
    if not label["useful"]:
        return "useless", "a fix the label calls useless"
    if decisive and not (decisive & set(steps)) and not (success in decisive and fix.get("changed")
                                                          or success in decisive and fix.get("command")
                                                          and fix.get("resolvedBy") == "cross_tool_resolution"):
        return "useless", "the decisive step is not in the fix"
    return "useful", ""


def evaluate(corpus="claude"):
    sessions = CORPORA[corpus]
    truth = labels(sessions)
    with tempfile.TemporaryDirectory(prefix="errkb-learning-eval-") as tmp:
        db, summary = learn(Path(tmp), sessions)
        pairs = learned_pairs(db)
    verdicts = []
    for pair in pairs:
        verdict, why = judge(pair, truth.get(pair[0]))
        verdicts.append((pair, verdict, why))
    learned = {p[0] for p in pairs}
    fixed = [l for l in truth.values() if l["kind"] == "error" and l["fixed"] == "yes"]
    missed = [l for l in fixed if l["error"] not in learned]
    return {"summary": summary, "verdicts": verdicts, "fixed": fixed, "missed": missed, "labels": truth,
            "corpus": corpus}


def parts(r):
    """The result split into the part the rules were written on and the
    part held out from it."""
    out_sources = held_out()
    call_source = sources_of_calls()

    def source(error_id):
        label = r["labels"].get(error_id)
        return label["source"] if label else call_source.get(error_id)

    # (a source not labelled yet is not judged: its pairs would all count as wrong)
    labelled = {l["source"] for l in r["labels"].values()}
    split = {}
    for name, keep in (("written on", lambda s: s in labelled and s not in out_sources),
                       ("held out", lambda s: s in labelled and s in out_sources)):
        split[name] = {
            "summary": r["summary"],
            "verdicts": [v for v in r["verdicts"] if keep(source(v[0][0]))],
            "fixed": [l for l in r["fixed"] if keep(l["source"])],
            "missed": [l for l in r["missed"] if keep(l["source"])],
            "labels": {k: l for k, l in r["labels"].items() if keep(l["source"])},
            "corpus": r["corpus"],
        }
    return split


def pct(n, d):
    return f"{100 * n / d:.0f} %" if d else "–"


def report(r):
    advised = [v for v in r["verdicts"] if not v[0][3]]
    weak = [v for v in r["verdicts"] if v[0][3]]
    count = Counter(v for _, v, _ in advised)
    non_errors = sum(1 for p, v, why in r["verdicts"] if why.startswith("not the tool's own error"))
    fixed, missed = len(r["fixed"]), len(r["missed"])
    useful_fixed = [l for l in r["fixed"] if l["useful"]]
    useful_missed = [l for l in r["missed"] if l["useful"]]
    n = len(advised)
    where = CORPORA[r["corpus"]].relative_to(ROOT)
    lines = [
        f"{len(r['labels'])} failed tool calls in {len({l['file'] for l in r['labels'].values()})} transcripts "
        f"({where}); {fixed} of them are errors the transcript shows fixed.",
        "",
        "| learned pairs (advised) | count | share |",
        "|---|---:|---:|",
        f"| correct and useful | {count['useful']} | {pct(count['useful'], n)} |",
        f"| correct but useless | {count['useless']} | {pct(count['useless'], n)} |",
        f"| wrong | {count['wrong']} | {pct(count['wrong'], n)} |",
        f"| **all** | **{n}** | |",
        "",
        f"- Non-errors learned (rejections, denials, blocks, input checks): {non_errors}.",
        f"- Weak fixes (the same command with nothing changed; stored, never advised): {len(weak)}, "
        f"of which wrong {sum(1 for _, v, _ in weak if v == 'wrong')}.",
        f"- Clearly fixed errors missed: {missed} of {fixed} ({pct(missed, fixed)}); of those whose fix is "
        f"useful: {len(useful_missed)} of {len(useful_fixed)} ({pct(len(useful_missed), len(useful_fixed))}).",
    ]
    return "\n".join(lines)


def details(r):
    out = []
    for (error, success, steps, weak, fix), verdict, why in r["verdicts"]:
        if verdict != "useful":
            label = r["labels"].get(error, {})
            out.append(f"{verdict.upper()}{' (weak)' if weak else ''}: {error} → {success}: {why}\n"
                       f"    label: {label.get('why', '')}\n    fix: {json.dumps(fix)[:300]}")
    for l in r["missed"]:
        out.append(f"MISSED{'' if l['useful'] else ' (useless)'}: {l['error']} {l['tool']} in {l['file']}: {l['why']}")
    return "\n".join(out)


SECTIONS = {
    "claude": ("<!-- begin learning (scripts/learning_eval.py) -->", "<!-- end learning -->",
               "## Learning from real sessions"),
    "codex": ("<!-- begin learning codex (scripts/learning_eval.py) -->", "<!-- end learning codex -->",
              "## Learning from real Codex sessions"),
}


def write_section(path, text, corpus="claude"):
    begin, end, title = SECTIONS[corpus]
    doc = path.read_text()
    block = f"{begin}\n{text}\n{end}"
    if begin in doc:
        doc = doc[:doc.index(begin)] + block + doc[doc.index(end) + len(end):]
    else:
        doc = doc.rstrip("\n") + f"\n\n{title}\n\n" + block + "\n"
    path.write_text(doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", type=Path, help="also write the report into this Markdown file's learning section")
    ap.add_argument("--details", action="store_true",
                    help="print every wrong or useless pair and every miss (of the sources the rules are written on)")
    ap.add_argument("--corpus", choices=sorted(CORPORA), action="append",
                    help="the corpus to judge (repeatable) [default: both]")
    args = ap.parse_args()
    for corpus in args.corpus or ["claude", "codex"]:
        r = evaluate(corpus)
        if corpus == "claude":
            split = parts(r)
            sections = []
            for name, part in split.items():
                sources = sorted({l["source"] for l in part["labels"].values()})
                sections.append(f"### Sources {name} ({len(sources)}: {', '.join(sources)})\n\n{report(part)}")
            text = "\n\n".join(sections)
            # (only of the sources the rules are written on: the held-out
            # ones are measured, never read)
            shown = split["written on"]
        else:
            text = report(r)
            shown = r
        print(f"== {corpus}")
        print(r["summary"].rstrip())
        print(text)
        if args.details:
            print(details(shown))
        if args.write:
            write_section(args.write, text, corpus)


if __name__ == "__main__":
    main()
