#!/usr/bin/env python3
"""Print a compact, numbered digest of the tool calls in Codex rollout files.

Usage:
    python3 scripts/codex_sessions/digest.py PATH [PATH ...]

Each PATH is a rollout (``.jsonl`` or ``.jsonl.gz``) or a folder, searched
recursively for ``rollout-*.jsonl`` / ``rollout-*.jsonl.gz``.  Standard library only (Python 3.11).  The Codex
counterpart of ``scripts/real_sessions/digest.py``.

For every file the tool calls are listed in the order they were made:

    [n] <call_id> <tool> <short input> -> OK
    [n] <call_id> <tool> <short input> -> ERROR (exit 1): <first 3 lines>

A rollout is one agent stream (a subagent spawned with ``spawn_agent`` writes
its own rollout, whose ``session_meta`` names its parent thread).

Record layouts met
------------------
* Legacy (0.2x, summer 2025): no envelope.  The first line is the session
  header ``{"id", "timestamp", "instructions", "git"}`` with no version; then
  ``{"record_type": "state"}`` lines and bare response items
  (``{"type": "function_call", ...}``).
* Envelope (0.3x onwards): ``{"timestamp", "type", "payload"}`` with
  ``type`` one of ``session_meta`` (``payload.cli_version``,
  ``payload.originator``), ``turn_context``, ``response_item``,
  ``event_msg``, ``compacted``.

Tool calls are ``response_item`` payloads of type ``function_call`` (``name``,
``arguments`` as a JSON string, ``call_id``), ``custom_tool_call`` (``name``,
free-text ``input``: the freeform ``apply_patch`` of 0.4x onwards) and
``local_shell_call`` (``action.command``); their results are
``function_call_output`` / ``custom_tool_call_output`` with the same
``call_id`` and an ``output`` string.  ``web_search_call`` items (hosted web
search) have no output and are not listed.

How a failure shows (ERROR)
---------------------------
The output string is read; when it carries an exit code, non-zero is an
error.  Shapes by version (as met in the corpus):

* JSON in the string, ``{"output": ..., "metadata": {"exit_code": N,
  "duration_seconds": ...}}``: ``shell`` 0.2x-0.5x (and legacy files), and
  the freeform ``apply_patch`` result of every version from 0.4x on.
* ``Exit code: N\\nWall time: ...\\nOutput:\\n...``: ``shell_command`` (and
  ``shell`` in some builds), 0.5x-0.10x.
* ``Chunk ID: ...\\nWall time: ...\\nProcess exited with code N\\n...``:
  unified exec (``exec_command`` / ``write_stdin``), 0.10x onwards.
  ``Process running with session ID S`` means the command is still running
  (listed as ``running``); its exit code arrives later in the output of a
  ``write_stdin`` poll of session S, and that poll is the call marked ERROR
  (the digest names the ``exec_command`` that started the session).  When
  the rollout also holds ``event_msg`` ``exec_command_end`` records (0.12x),
  their ``exit_code`` is shown next to the starting call.
* Codex's own refusals and failures, plain text with no exit code:
  ``failed in sandbox <Sandbox> with execution error: ...`` (0.2x-0.4x;
  the exit code inside, if any, is shown), ``execution error: ...``,
  ``exec_command failed: ...``, ``write_stdin failed: ...``,
  ``exec command rejected by user``, ``... rejected: blocked by policy``,
  ``aborted`` / ``Wall time: ...\\naborted by user`` (interrupted),
  ``failed to parse function arguments: ...``, ``unsupported call: ...``,
  ``request_user_input is unavailable ...``, ``resources/list failed: ...``.
* ``apply_patch``: ``apply_patch verification failed: ...`` (freeform tool,
  0.4x onwards); ``error: Failed to find expected lines ...`` /
  ``error: invalid hunk ...`` / ``error: invalid patch ...`` /
  ``error: Failed to read file ...`` (legacy files and 0.2x-0.3x, where
  ``apply_patch`` ran as ``shell`` with ``["apply_patch", PATCH]`` or as a
  function tool ``apply_patch`` with a JSON ``input``).
* MCP and other tools: a JSON result with ``"isError": true``, or text
  beginning ``Search error:`` (a custom search tool in one source).

Anything else is OK (``Plan updated``, MCP results, ``spawn_agent`` answers).

Options:
    --errors-only   print only the calls marked ERROR
    --width N       shorten inputs to N characters (default 200)
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import digest_common  # noqa: E402
from digest_common import INPUT_WIDTH, find_files, first_lines, one_line, open_text, shorten  # noqa: E402,F401


ENVELOPE_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call"}
OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}

# Plain-text outputs that are Codex refusing or failing the call.
ERROR_PREFIXES = (
    "failed in sandbox",
    "execution error:",
    "exec_command failed:",
    "write_stdin failed:",
    "exec command rejected by user",
    "aborted",
    "failed to parse function arguments",
    "unsupported call:",
    "apply_patch verification failed",
    "error: failed to find expected lines",
    "error: invalid hunk",
    "error: invalid patch",
    "error: failed to read file",
    "error: failed to write file",
    "request_user_input is unavailable",
    "resources/list failed",
    "resource templates/list failed",
    "search error:",
)

EXIT_CODE_TEXT = re.compile(r"\AExit code: (-?\d+)\s*\n")
PROCESS_EXITED = re.compile(r"^Process exited with code (-?\d+)\s*$", re.M)
PROCESS_RUNNING = re.compile(r"^Process running with session ID (\d+)\s*$", re.M)
SANDBOX_EXIT = re.compile(r"exit code: (-?\d+)")
BLOCKED_BY_POLICY = re.compile(r"` rejected: blocked by policy\s*\Z")
ABORTED_AFTER_WALL = re.compile(r"\AWall time: [\d.]+ seconds\s*\naborted", re.I)










def patch_files(patch: str) -> str:
    """The files a patch touches: '*** Update File: x' -> 'U x'."""
    out = []
    for m in re.finditer(r"^\*\*\* (Add|Update|Delete) File: (.+)$", patch, re.M):
        out.append(f"{m.group(1)[0]} {m.group(2).strip()}")
    for m in re.finditer(r"^\*\*\* Move to: (.+)$", patch, re.M):
        out.append(f"-> {m.group(1).strip()}")
    return ", ".join(out) if out else one_line(patch)


def command_text(cmd) -> str:
    """A shell command as one string: ['bash', '-lc', X] -> X."""
    if isinstance(cmd, list):
        parts = [str(c) for c in cmd]
        if len(parts) >= 3 and parts[1] in ("-lc", "-c", "-Command", "/c"):
            return " ".join(parts[2:])
        return " ".join(parts)
    return str(cmd)


def parse_args(raw) -> object:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def short_input(name: str, args, width: int) -> str:
    """The part of a call's input a human needs to see."""
    if isinstance(args, str):
        if name == "apply_patch" or args.lstrip().startswith("*** Begin Patch"):
            return shorten(patch_files(args), width)
        return shorten(one_line(args), width)
    if not isinstance(args, dict):
        return shorten(one_line(json.dumps(args, ensure_ascii=False)), width)
    parts: list[str] = []
    if name == "write_stdin":
        parts.append(f"session {args.get('session_id')}")
        chars = args.get("chars")
        parts.append("(poll)" if not chars else "chars=" + repr(chars))
    elif "command" in args or "cmd" in args:
        cmd = args.get("command", args.get("cmd"))
        if isinstance(cmd, list) and cmd and cmd[0] == "apply_patch":
            parts.append("apply_patch: " + patch_files(" ".join(str(c) for c in cmd[1:])))
        else:
            parts.append(one_line(command_text(cmd)))
        wd = args.get("workdir")
        if wd:
            parts.append(f"[in {wd}]")
        if args.get("with_escalated_permissions") or args.get("sandbox_permissions") == "require_escalated":
            parts.append("[escalated]")
        if args.get("timeout_ms") or args.get("timeout"):
            parts.append(f"[timeout {args.get('timeout_ms') or args.get('timeout')}]")
    elif name == "update_plan" and isinstance(args.get("plan"), list):
        parts.append(f"{len(args['plan'])} steps")
    elif "input" in args and name == "apply_patch":
        parts.append(patch_files(str(args["input"])))
    else:
        parts.append(one_line(json.dumps(args, ensure_ascii=False)))
    return shorten(" ".join(p for p in parts if p), width)




@dataclass
class Verdict:
    status: str  # "OK", "ERROR", "running"
    exit_code: int | None
    text: str  # the body to show (command output or message)
    session: int | None = None  # unified exec session id, when running


def after_output_header(text: str) -> str:
    m = re.search(r"^Output:\n", text, re.M)
    return text[m.end():] if m else text


def classify(output) -> Verdict:
    """Whether a call's output says it failed, and why."""
    if isinstance(output, dict):
        # Structured outputs ({"content": ..., "success": bool}).
        body = output.get("content", output)
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        ok = output.get("success")
        return Verdict("ERROR" if ok is False else "OK", None, text)
    if isinstance(output, list):
        text = "\n".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in output)
        return classify(text)
    if not isinstance(output, str):
        return Verdict("OK", None, json.dumps(output, ensure_ascii=False))
    s = output.lstrip()
    # JSON in the string: shell 0.2x-0.5x and freeform apply_patch.
    if s.startswith("{") or s.startswith("["):
        try:
            j = json.loads(s)
        except json.JSONDecodeError:
            j = None
        if isinstance(j, dict) and isinstance(j.get("metadata"), dict) and "exit_code" in j["metadata"]:
            code = j["metadata"].get("exit_code")
            body = str(j.get("output", ""))
            if isinstance(code, int) and code != 0:
                return Verdict("ERROR", code, body)
            return Verdict("OK", code, body)
        if isinstance(j, dict) and j.get("isError") is True:
            return Verdict("ERROR", None, s)
        if isinstance(j, list):
            text = "\n".join(str(b.get("text", "")) for b in j if isinstance(b, dict))
            if text.lower().startswith(ERROR_PREFIXES):
                return Verdict("ERROR", None, text)
            return Verdict("OK", None, text)
        return Verdict("OK", None, s)
    m = EXIT_CODE_TEXT.match(s)
    if m:
        code = int(m.group(1))
        return Verdict("ERROR" if code != 0 else "OK", code, after_output_header(s))
    if s.startswith("Chunk ID:") or PROCESS_EXITED.search(s[:400]) or PROCESS_RUNNING.search(s[:400]):
        head = s[:400]
        m = PROCESS_EXITED.search(head)
        if m:
            code = int(m.group(1))
            return Verdict("ERROR" if code != 0 else "OK", code, after_output_header(s))
        m = PROCESS_RUNNING.search(head)
        if m:
            return Verdict("running", None, after_output_header(s), int(m.group(1)))
        return Verdict("OK", None, after_output_header(s))
    if ABORTED_AFTER_WALL.match(s):
        return Verdict("ERROR", None, s)
    if BLOCKED_BY_POLICY.search(s):
        return Verdict("ERROR", None, s)
    if s.lower().startswith(ERROR_PREFIXES):
        code = None
        if s.startswith("failed in sandbox") or s.startswith("exec_command failed"):
            m = SANDBOX_EXIT.search(s[:2000])
            if m:
                code = int(m.group(1))
        return Verdict("ERROR", code, s)
    if s.startswith("Wall time:"):
        return Verdict("OK", None, after_output_header(s))
    return Verdict("OK", None, s)


@dataclass
class Call:
    call_id: str
    name: str
    summary: str
    args: object
    verdict: Verdict | None = None
    note: str = ""


@dataclass
class Rollout:
    """What one rollout file holds: its calls in order and its session header."""
    calls: list[Call]
    sessions: list[str]
    versions: list[str]
    originators: list[str]
    parents: list[str]
    records: int
    bad: int
    orphans: list[tuple[str, Verdict]]


def read_rollout(path: str, width: int = INPUT_WIDTH) -> Rollout:
    """Parse a rollout: the tool calls in the order they were made, each with its verdict."""
    calls: dict[str, Call] = {}
    order: list[str] = []
    sessions: list[str] = []
    versions: list[str] = []
    originators: list[str] = []
    parents: list[str] = []
    exec_end: dict[str, object] = {}
    bad = records = 0
    orphans: list[tuple[str, Verdict]] = []

    with open_text(path) as fh:
        for n_line, line in enumerate(fh):
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
            if rec.get("type") in ENVELOPE_TYPES and isinstance(rec.get("payload"), dict):
                kind, p = rec["type"], rec["payload"]
            elif rec.get("record_type"):
                continue
            elif n_line == 0 and "id" in rec and "type" not in rec:
                kind, p = "session_meta", rec  # legacy header
            else:
                kind, p = "response_item", rec  # legacy bare item
            if kind == "session_meta":
                sid = p.get("id") or p.get("session_id")
                if sid and sid not in sessions:
                    sessions.append(str(sid))
                for key, acc in (("cli_version", versions), ("originator", originators)):
                    v = p.get(key)
                    if v and v not in acc:
                        acc.append(str(v))
                src = p.get("source")
                if isinstance(src, dict):
                    spawn = (src.get("subagent") or {}).get("thread_spawn") if isinstance(src.get("subagent"), dict) else None
                    if isinstance(spawn, dict) and spawn.get("parent_thread_id"):
                        parents.append(str(spawn["parent_thread_id"]))
                continue
            if kind == "event_msg":
                if p.get("type") == "exec_command_end" and p.get("call_id"):
                    exec_end[str(p["call_id"])] = p.get("exit_code")
                continue
            if kind != "response_item":
                continue
            t = p.get("type")
            if t in CALL_TYPES:
                cid = str(p.get("call_id") or p.get("id"))
                if t == "local_shell_call":
                    name = "local_shell"
                    args = {"command": (p.get("action") or {}).get("command")}
                elif t == "custom_tool_call":
                    name = str(p.get("name"))
                    args = p.get("input", "")
                else:
                    name = str(p.get("name"))
                    args = parse_args(p.get("arguments"))
                if cid not in calls:
                    calls[cid] = Call(cid, name, short_input(name, args, width), args)
                    order.append(cid)
            elif t in OUTPUT_TYPES:
                cid = str(p.get("call_id"))
                v = classify(p.get("output"))
                if cid in calls:
                    if calls[cid].verdict is None:
                        calls[cid].verdict = v
                else:
                    orphans.append((cid, v))

    # Unified exec: which exec_command started each session.
    started: dict[int, Call] = {}
    for cid in order:
        c = calls[cid]
        v = c.verdict
        if v and v.session is not None and c.name == "exec_command":
            started[v.session] = c
        if c.name == "write_stdin" and isinstance(c.args, dict):
            origin = started.get(c.args.get("session_id"))
            if origin is not None:
                c.note = f" [session of {origin.call_id}: {shorten(one_line(command_text((origin.args or {}).get('cmd', ''))), 80)}]" if isinstance(origin.args, dict) else ""
        if cid in exec_end and v and v.status == "running":
            c.note = f" [exec_command_end exit {exec_end[cid]}]"

    return Rollout([calls[cid] for cid in order], sessions, versions, originators, parents, records, bad, orphans)


def digest_file(path: str, width: int, errors_only: bool, out) -> tuple[int, int, int]:
    r = read_rollout(path, width)
    listed, sessions, versions, originators, parents = r.calls, r.sessions, r.versions, r.originators, r.parents
    records, bad, orphans = r.records, r.bad, r.orphans
    n_calls = sum(1 for c in listed if c.verdict is not None)
    n_err = sum(1 for c in listed if c.verdict and c.verdict.status == "ERROR")
    meta = []
    if sessions:
        meta.append("session " + ", ".join(sessions[:1]) + (f" (+{len(sessions) - 1} forked)" if len(sessions) > 1 else ""))
    meta.append("codex " + (", ".join(versions) if versions else "version not recorded"))
    if originators:
        meta.append(", ".join(originators))
    if parents:
        meta.append("subagent of " + parents[0])
    meta.append(f"{records} records, {n_calls} calls with output, {n_err} errors")
    if bad:
        meta.append(f"{bad} unparsable lines")
    print(f"=== {path}", file=out)
    print("    " + "; ".join(meta), file=out)
    for n, c in enumerate(listed, 1):
        v = c.verdict
        if v is None:
            if not errors_only:
                print(f"[{n}] {c.call_id} {c.name} {c.summary} -> (no output)", file=out)
            continue
        if v.status == "ERROR":
            code = f" (exit {v.exit_code})" if v.exit_code is not None else ""
            verdict = f"ERROR{code}: " + first_lines(v.text)
        elif errors_only:
            continue
        elif v.status == "running":
            verdict = f"running (session {v.session})"
        else:
            verdict = "OK"
        print(f"[{n}] {c.call_id} {c.name} {c.summary}{c.note} -> {verdict}", file=out)
    for cid, v in orphans:
        if errors_only and v.status != "ERROR":
            continue
        print(f"[-] {cid} ? (call not in this file) -> {v.status}", file=out)
    print(file=out)
    return 1, n_calls, n_err


def find_rollouts(paths: list[str]) -> list[str]:
    return find_files(paths, lambda name: name.startswith("rollout-") and (name.endswith(".jsonl") or name.endswith(".jsonl.gz")))


def main(argv: list[str] | None = None) -> int:
    return digest_common.main(argv, __doc__, find_rollouts, digest_file, "rollout .jsonl or .jsonl.gz files", "tool calls with output")


if __name__ == "__main__":
    digest_common.run(main)
