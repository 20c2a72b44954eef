#!/usr/bin/env python3
"""Print a compact, numbered digest of the tool calls in Claude Code transcripts.

Usage:
    python3 scripts/real_sessions/digest.py PATH [PATH ...]

Each PATH is a transcript (``.jsonl`` or ``.jsonl.gz``) or a folder, searched
recursively for them.  Standard library only (Python 3.11).

For every file, and within it for every agent stream (the main thread, and
each subagent), the tool calls are listed in the order their results arrived:

    [n] <tool_use_id> <Tool> <short input> -> OK
    [n] <tool_use_id> <Tool> <short input> -> ERROR: <first 3 lines of result>

Pairing: assistant records hold ``tool_use`` blocks (id, name, input); user
records hold ``tool_result`` blocks (tool_use_id, content, is_error).  A
subagent stream is recognised by ``isSidechain: true`` records (grouped by
their ``agentId`` when they have one) or by the file living at
``<session>/subagents/agent-*.jsonl`` (newer clients) or being a top-level
``agent-*.jsonl`` (older clients), or by ``progress`` records of type
``agent_progress`` (clients around 2.1.3x-2.1.4x copy a running subagent's
messages into the main file that way).  Tool calls that never got a result are
listed at the end of their stream as ``-> (no result)``.

Options:
    --errors-only   print only the calls whose result has is_error true
    --width N       shorten inputs to N characters (default 200)
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import digest_common  # noqa: E402
from digest_common import INPUT_WIDTH, find_files, first_lines, one_line, open_text, shorten  # noqa: E402,F401











def short_input(name: str, inp, width: int) -> str:
    """The part of a tool's input a human needs to see."""
    if not isinstance(inp, dict):
        return shorten(one_line(json.dumps(inp, ensure_ascii=False)), width)
    parts: list[str] = []
    if name == "Bash" or "command" in inp:
        parts.append(one_line(str(inp.get("command", ""))))
        if inp.get("run_in_background"):
            parts.append("[background]")
        if inp.get("dangerouslyDisableSandbox"):
            parts.append("[dangerouslyDisableSandbox]")
    elif "file_path" in inp or "notebook_path" in inp:
        parts.append(str(inp.get("file_path") or inp.get("notebook_path")))
        if "offset" in inp or "limit" in inp:
            parts.append(f"(offset={inp.get('offset')}, limit={inp.get('limit')})")
        if name in ("Edit", "MultiEdit") and "old_string" in inp:
            parts.append("old=" + shorten(one_line(str(inp["old_string"])), 60))
    elif "pattern" in inp:
        parts.append(repr(inp["pattern"]))
        for key in ("path", "glob", "type", "output_mode"):
            if inp.get(key):
                parts.append(f"{key}={inp[key]}")
    elif name in ("Task", "Agent"):
        parts.append(f"[{inp.get('subagent_type', '?')}] {one_line(str(inp.get('description', '')))}")
    elif "url" in inp:
        parts.append(str(inp["url"]))
    elif "query" in inp:
        parts.append(one_line(str(inp["query"])))
    elif name == "AskUserQuestion" and isinstance(inp.get("questions"), list):
        qs = [q.get("question", "") for q in inp["questions"] if isinstance(q, dict)]
        parts.append(one_line(" | ".join(qs)))
    elif name == "TodoWrite" and isinstance(inp.get("todos"), list):
        parts.append(f"{len(inp['todos'])} todos")
    elif "skill" in inp:
        parts.append(str(inp["skill"]))
    else:
        parts.append(one_line(json.dumps(inp, ensure_ascii=False)))
    return shorten(" ".join(p for p in parts if p), width)


def result_text(content) -> str:
    """The text of a tool_result's content (a string or a list of blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text":
                    out.append(str(block.get("text", "")))
                elif block.get("type") == "image":
                    out.append("[image]")
                else:
                    out.append(f"[{block.get('type', '?')}]")
            else:
                out.append(str(block))
        return "\n".join(out)
    return json.dumps(content, ensure_ascii=False)




@dataclass
class Call:
    tool_id: str
    name: str
    summary: str


@dataclass
class Stream:
    label: str
    calls: dict[str, Call] = field(default_factory=dict)
    results: list[tuple[Call, bool, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    duplicates: int = 0


def stream_key_for_file(path: str) -> str | None:
    """A subagent label when the whole file is one subagent's transcript."""
    base = os.path.basename(path)
    m = re.match(r"agent-([^.]+)\.jsonl(\.gz)?$", base)
    if m:
        return f"subagent {m.group(1)} (file)"
    return None


def digest_file(path: str, width: int, errors_only: bool, out) -> tuple[int, int, int]:
    file_label = stream_key_for_file(path)
    streams: dict[str, Stream] = {}
    order: list[str] = []
    sessions: list[str] = []
    versions: list[str] = []
    bad = 0
    records = 0
    roots: dict[str, str | None] = {}

    def stream(label: str) -> Stream:
        if label not in streams:
            streams[label] = Stream(label)
            order.append(label)
        return streams[label]

    def add_blocks(st: Stream, content: list) -> None:
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                tid = str(block.get("id"))
                name = str(block.get("name"))
                st.calls.setdefault(tid, Call(tid, name, short_input(name, block.get("input"), width)))
            elif block.get("type") == "tool_result":
                tid = str(block.get("tool_use_id"))
                if tid in st.seen:
                    st.duplicates += 1
                    continue
                st.seen.add(tid)
                call = st.calls.get(tid) or Call(tid, "?", "(tool_use not in this stream)")
                st.results.append((call, bool(block.get("is_error")), result_text(block.get("content"))))

    with open_text(path) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            if not isinstance(rec, dict):
                continue
            records += 1
            sid = rec.get("sessionId")
            if sid and sid not in sessions:
                sessions.append(sid)
            ver = rec.get("version")
            if ver and ver not in versions:
                versions.append(ver)
            uuid, parent = rec.get("uuid"), rec.get("parentUuid")
            if uuid:
                # The first record of an old-style inline sidechain has no parent
                # (or a parent outside the sidechain): it names the whole chain.
                roots[uuid] = roots.get(parent, uuid) if rec.get("isSidechain") else None
            msg = rec.get("message")
            data = rec.get("data")
            if rec.get("type") == "progress" and isinstance(data, dict) and data.get("type") == "agent_progress":
                # Clients around 2.1.3x-2.1.4x mirror a running subagent's
                # messages into the main file as progress records.
                inner = data.get("message")
                msg = inner.get("message") if isinstance(inner, dict) else None
                if isinstance(msg, dict) and isinstance(msg.get("content"), list):
                    add_blocks(stream(f"subagent {data.get('agentId', '?')} (progress records)"), msg["content"])
                continue
            if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
                continue
            if file_label:
                label = file_label
            elif rec.get("isSidechain"):
                if rec.get("agentId"):
                    label = f"subagent {rec['agentId']}"
                else:
                    root = roots.get(uuid) or roots.get(parent) or "?"
                    label = f"sidechain {str(root)[:8]} (no agentId)"
            else:
                label = "main"
            add_blocks(stream(label), msg["content"])

    n_calls = sum(len(s.results) for s in streams.values())
    n_err = sum(1 for s in streams.values() for _, e, _ in s.results if e)
    head = f"=== {path}"
    meta = []
    if sessions:
        meta.append("session " + ", ".join(sessions))
    if versions:
        meta.append("version " + (versions[0] if len(versions) == 1 else f"{versions[0]}..{versions[-1]}"))
    meta.append(f"{records} records, {n_calls} results, {n_err} errors")
    if bad:
        meta.append(f"{bad} unparsable lines")
    print(head, file=out)
    print("    " + "; ".join(meta), file=out)
    for label in order:
        st = streams[label]
        if not st.calls and not st.results:
            continue
        n_s_err = sum(1 for _, e, _ in st.results if e)
        extra = f", {st.duplicates} repeated results skipped" if st.duplicates else ""
        print(f"--- {label}: {len(st.results)} results, {n_s_err} errors{extra}", file=out)
        for n, (call, is_err, text) in enumerate(st.results, 1):
            if errors_only and not is_err:
                continue
            verdict = "ERROR: " + first_lines(text) if is_err else "OK"
            print(f"[{n}] {call.tool_id} {call.name} {call.summary} -> {verdict}", file=out)
        pending = [c for tid, c in st.calls.items() if tid not in st.seen]
        for call in pending:
            if not errors_only:
                print(f"[-] {call.tool_id} {call.name} {call.summary} -> (no result)", file=out)
    print(file=out)
    return 1, n_calls, n_err


def find_transcripts(paths: list[str]) -> list[str]:
    return find_files(paths, lambda name: name.endswith(".jsonl") or name.endswith(".jsonl.gz"))


def main(argv: list[str] | None = None) -> int:
    return digest_common.main(argv, __doc__, find_transcripts, digest_file, ".jsonl or .jsonl.gz files", "tool results")


if __name__ == "__main__":
    digest_common.run(main)
