#!/usr/bin/env python3
"""What errkb would have said, replayed (make eval).

    python3 scripts/replay_eval.py [--write docs/EVAL.md] [--details] [--sources A,B]

Each source of the labelled real sessions (tests/fixtures/real_sessions) is
one project. Its sessions are replayed in the order they began, into a
knowledge base that starts empty: each failed call the labels call an
error is first sent through the failure hook (`errkb hook
PostToolUseFailure`, the payload Claude Code would have sent), knowing only
what the sessions before it taught; then the session is learned (`errkb
learn` of its transcripts). So the advice a failure gets is what errkb
would have told the agent then. After each session the new entries are
embedded (`errkb embed`), as the job SessionEnd starts does, so the vector
stage finds them by meaning.

When errkb speaks, the fix it tells was learned from an earlier error (the
advice names the fix; `learned_errors` names the error it was learned
from). The labels give each error a `problem`: a name for what went wrong
and why, the same for two errors of one project when the same fix applies
to both (LABELS.md). A spoken advice is

- right: the fix's error is the same problem, and its fix was useful;
- partly: the same problem, but a fix the labels call useless (a flaky
  rerun, a fix of this code's own logic);
- wrong: another problem.

Silent with knowledge: errkb said nothing, although an earlier session
had fixed the same problem with a useful fix. Such a silence is counted
in two parts: errkb had learned an advisable fix of that problem (the
search did not find it, or the one rule would not let it be told), or it
had learned none (a fix missed by learning). A source whose labels have
no `problem` yet is replayed and counted, not judged.
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
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "dist" / "errkb"
SESSIONS = ROOT / "tests" / "fixtures" / "real_sessions"


def held_out():
    """The sources held out from rule-writing (their advice is reported in
    aggregate only, never in detail)."""
    text = (SESSIONS / "held_out.txt").read_text()
    return {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}


def labels():
    out = {}
    for path in sorted((SESSIONS / "labels").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                label = json.loads(line)
                out[label["error"]] = label
    return out


def result_text(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return json.dumps(content)


def failures(path):
    """The failed calls of a transcript, in the order their results came:
    (timestamp, session id, cwd, agent id, tool_use_id, tool, input, error text)."""
    calls, out = {}, []
    agent_file = Path(path).name.startswith("agent-")
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            message = record.get("message")
            if not isinstance(message, dict) or not isinstance(message.get("content"), list):
                continue
            agent = record.get("agentId") if (record.get("isSidechain") or agent_file) else None
            for block in message["content"]:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    calls[block.get("id")] = (block.get("name"), block.get("input") or {})
                elif block.get("type") == "tool_result" and block.get("is_error"):
                    tid = block.get("tool_use_id")
                    name, tool_input = calls.get(tid, (None, {}))
                    if name is None:
                        continue
                    out.append((record.get("timestamp") or "", record.get("sessionId") or "", record.get("cwd") or "",
                                agent, tid, name, tool_input, result_text(block.get("content"))))
    return out


def first_timestamp(path):
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                ts = json.loads(line).get("timestamp")
            except (ValueError, AttributeError):
                continue
            if ts:
                return ts
    return ""


def sessions_of(source):
    """The source's sessions in the order they began: (first timestamp, [files]),
    a session's subagent files with it."""
    groups = defaultdict(list)
    for gz in sorted((SESSIONS / source).rglob("*.jsonl.gz")):
        # subagents/agent-*.jsonl sit in the folder named after their session
        key = gz.parent.parent if gz.parent.name == "subagents" else gz
        groups[key].append(gz)
    ordered = []
    for key, files in groups.items():
        main = [f for f in files if f.parent.name != "subagents"] or files
        ordered.append((min(first_timestamp(f) for f in main), files))
    return sorted(ordered, key=lambda s: s[0])


def run(args, stdin=None, env=None):
    return subprocess.run([str(RUNNER), *args], input=stdin, capture_output=True, text=True, env=env, timeout=300)


def replay_source(source, truth, work):
    home = work / source
    (home / ".reflexion").mkdir(parents=True)
    db = home / "kb.db"
    env = {**os.environ, "HOME": str(home), "ERRKB_DB": str(db), "ERRKB_LANGUAGE": "en"}
    outcomes = []
    for n, (_, files) in enumerate(sessions_of(source)):
        # the problems errkb holds an advisable fix of, learned from an
        # earlier session: a silence on one of them is the search's miss,
        # on any other a fix not learned
        fixes_held = learned_problems(db, truth) if db.exists() else set()
        for ts, session, cwd, agent, tid, tool, tool_input, error in sorted(
                (f for path in files for f in failures(path)), key=lambda f: f[0]):
            label = truth.get(tid)
            if not label or label["kind"] != "error":
                continue
            # asked in a session of its own, so that what was told in one
            # replayed failure does not hide another's advice
            payload = {"session_id": f"replay-{n}-{tid}", "cwd": cwd, "hook_event_name": "PostToolUseFailure",
                       "tool_name": tool, "tool_input": tool_input, "tool_use_id": f"replay-{tid}",
                       "error": error, "transcript_path": "/nowhere.jsonl"}
            if agent:
                payload["agent_id"] = agent
            out = run(["hook", "PostToolUseFailure"], json.dumps(payload), env).stdout
            told = None
            if out.strip():
                with sqlite3.connect(db) as conn:
                    row = conn.execute(
                        "SELECT e.data ->> '$.toolUseId' FROM events AS a "
                        "JOIN learned_errors AS l ON l.fix_id = a.data ->> '$.fixId' "
                        "JOIN events AS e ON e.id = l.event_id "
                        "WHERE a.type = 'advice' AND a.data ->> '$.toolUseId' = ? ORDER BY l.ts LIMIT 1",
                        (f"replay-{tid}",)).fetchone()
                told = row[0] if row else "?"
            outcomes.append({"error": tid, "label": label, "spoke": bool(out.strip()), "told": told, "session": n,
                             "learned_before": label.get("problem") in fixes_held,
                             "text": json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""})
        # (errkb learn reads transcripts as Claude Code writes them: unpacked)
        unpacked = []
        for gz in files:
            dest = home / "projects" / gz.relative_to(SESSIONS).with_suffix("")
            dest.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(gz, "rb") as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
            unpacked.append(dest)
        learned = run(["learn", *map(str, unpacked)], env=env)
        if learned.returncode != 0:
            sys.exit(f"errkb learn failed on {files}: {learned.stderr}")
        # what the job SessionEnd starts does next: the new entries get
        # their vectors, so that the vector stage finds them by meaning
        embedded = run(["embed"], env=env)
        if embedded.returncode != 0:
            sys.exit(f"errkb embed failed after {files}: {embedded.stderr}")
    return outcomes


def learned_problems(db, truth):
    """The problems of the errors the knowledge base holds a fix of that
    may be advised (learned, not weak) and that the labels call fixed,
    usefully: the same test as for "fixed before" (`evaluate`), so that a
    wrong or useless fix learned does not count as knowledge the search
    missed."""
    with sqlite3.connect(db) as conn:
        errors = conn.execute("SELECT e.data ->> '$.toolUseId' FROM learned_errors AS l "
                              "JOIN events AS e ON e.id = l.event_id JOIN fixes AS f ON f.id = l.fix_id "
                              "WHERE NOT f.weak").fetchall()
    labels = [truth.get(tid) or {} for (tid,) in errors]
    return {l["problem"] for l in labels if l.get("problem") and l.get("fixed") == "yes" and l.get("useful")}


def judge(outcome, truth, fixed_before):
    """right / partly / wrong for advice; silent_known / silent for silence; None when unjudged."""
    label = outcome["label"]
    problem = label.get("problem")
    if outcome["spoke"]:
        source = truth.get(outcome["told"])
        if not problem or not source or not source.get("problem"):
            return None
        if source["problem"] != problem:
            return "wrong"
        return "right" if source.get("useful") else "partly"
    if not problem:
        return None
    return "silent_known" if problem in fixed_before else "silent"


def evaluate(sources):
    truth = labels()
    results = {}
    with tempfile.TemporaryDirectory(prefix="errkb-replay-") as tmp:
        for source in sources:
            outcomes = replay_source(source, truth, Path(tmp))
            # the problems a useful fix was found for in an earlier session
            # (errkb learns a session after its failures were asked)
            known, this_session, verdicts = set(), set(), []
            session = None
            for o in outcomes:
                if o["session"] != session:
                    known |= this_session
                    this_session, session = set(), o["session"]
                verdicts.append((o, judge(o, truth, known)))
                label = o["label"]
                if label.get("problem") and label.get("fixed") == "yes" and label.get("useful"):
                    this_session.add(label["problem"])
            results[source] = verdicts
    return results


def pct(n, d):
    return f"{100 * n / d:.0f} %" if d else "–"


def report(results):
    lines = ["| source | failures | spoke | right | partly | wrong | silent, fix known before | not judged |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    total = Counter()
    for source, verdicts in results.items():
        c = Counter(v for _, v in verdicts)
        spoke = sum(1 for o, _ in verdicts if o["spoke"])
        row = [len(verdicts), spoke, c["right"], c["partly"], c["wrong"], c["silent_known"], c[None]]
        total.update(dict(zip(["failures", "spoke", "right", "partly", "wrong", "silent_known", "unjudged"], row)))
        lines.append(f"| {source} | " + " | ".join(map(str, row)) + " |")
    lines.append("| **all** | " + " | ".join(f"**{total[k]}**" for k in
                                               ["failures", "spoke", "right", "partly", "wrong", "silent_known",
                                                "unjudged"]) + " |")
    lines.append("")
    out = held_out()
    parts = [("all sources", results.keys()),
             ("sources the rules are written on", [s for s in results if s not in out]),
             ("sources held out from rule-writing", [s for s in results if s in out])]
    for name, sources in parts:
        part = Counter(v for source in sources for _, v in results[source])
        judged = part["right"] + part["partly"] + part["wrong"]
        known = part["silent_known"] + part["right"] + part["partly"]
        searched = sum(1 for source in sources for o, v in results[source]
                       if v == "silent_known" and o["learned_before"])
        lines += [f"- {name.capitalize()}: when errkb spoke (judged), right {pct(part['right'], judged)}, partly "
                  f"{pct(part['partly'], judged)}, wrong {pct(part['wrong'], judged)} of {judged}; silent although "
                  f"an earlier session had fixed the same problem usefully: {part['silent_known']} of the {known} failures whose "
                  f"problem had one ({pct(part['silent_known'], known)}): of those, {searched} with a fix of that "
                  f"problem learned (the search did not find it or may not tell it), "
                  f"{part['silent_known'] - searched} with none learned."]
    return "\n".join(lines)


def details(results):
    """Every wrong or partly right advice and every silence with knowledge,
    of the sources the rules are written on only: the held-out ones are
    measured, never read."""
    out = []
    for source, verdicts in results.items():
        if source in held_out():
            continue
        for o, v in verdicts:
            if v in ("wrong", "partly", "silent_known"):
                # (a silence where a fix of the problem was learned before is the search's)
                held = " (a fix was learned before)" if v == "silent_known" and o["learned_before"] else ""
                out.append(f"{v.upper()}{held}: {source} {o['error']} ({o['label'].get('problem')}): "
                           f"{o['label']['why']}\n    told from {o['told']}: {o['text'][:300]!r}")
    return "\n".join(out)


def write_section(path, text):
    begin, end = "<!-- begin replay (scripts/replay_eval.py) -->", "<!-- end replay -->"
    doc = path.read_text()
    block = f"{begin}\n{text}\n{end}"
    if begin in doc:
        doc = doc[:doc.index(begin)] + block + doc[doc.index(end) + len(end):]
    else:
        doc = doc.rstrip("\n") + "\n\n## Replayed in time order\n\n" + block + "\n"
    path.write_text(doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", type=Path, help="also write the report into this Markdown file's replay section")
    ap.add_argument("--details", action="store_true", help="print every wrong or partly right advice, every miss (of the sources the rules are "
                         "written on)")
    ap.add_argument("--sources", help="comma-separated source folders (default: all)")
    args = ap.parse_args()
    sources = args.sources.split(",") if args.sources else sorted(
        p.name for p in SESSIONS.iterdir() if p.is_dir() and p.name != "labels")
    results = evaluate(sources)
    text = report(results)
    print(text)
    if args.details:
        print(details(results))
    if args.write:
        write_section(args.write, text)


if __name__ == "__main__":
    main()
