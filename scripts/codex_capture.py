#!/usr/bin/env python3
"""Re-check docs/CODEX.md against the real Codex CLI: drive `codex exec`
against the scripted Responses API stand-in (tests/codex_standin.py) in
throwaway CODEX_HOMEs, with a hook that records every payload, and keep
what came out: hook payloads, the requests the "model" received, the
session rollouts.

    make codex                       # the pinned client, into .cache/codex
    python3 scripts/codex_capture.py [--codex PATH] [--out DIR] [SCENARIO ...]

Scenarios: story, answers, resume, config_toml, matchers, project, plugin,
mcp, subagent, approval (all by default). Each writes DIR/<scenario>/ (payloads.jsonl,
requests.jsonl, rollout-*.jsonl, stdout.txt, stderr.txt) and the run ends
with DIR/facts.json: what each check found, and a line per check,
'N passed, N failed'. No network but 127.0.0.1; no API key (a dummy one);
the real ~/.codex is never read (HOME and CODEX_HOME point into DIR).
Plain Python 3, no pytest.
"""
import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from codex_standin import (StandIn, call, config_toml, developer_texts, items_around,  # noqa: E402
                           output_of, patch, search, shell, text)

TRIPLES = {("Linux", "x86_64"): ("linux-x64", "x86_64-unknown-linux-musl"),
           ("Linux", "aarch64"): ("linux-arm64", "aarch64-unknown-linux-musl"),
           ("Darwin", "x86_64"): ("darwin-x64", "x86_64-apple-darwin"),
           ("Darwin", "arm64"): ("darwin-arm64", "aarch64-apple-darwin")}

# Every event name the 0.171.0 binary carries an input schema for, plus
# Claude Code's PostToolUseFailure (to show it is ignored).
EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
          "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop", "SessionEnd",
          "Interrupt", "PostToolUseFailure"]
SHORT_EVENTS = ("SessionEnd", "Interrupt")
NO_MATCHER_EVENTS = ("UserPromptSubmit", "Stop", "Interrupt")  # a matcher there is dropped
# The snake_case labels Codex uses in hook keys and trust hashes.
LABELS = {e: re.sub(r"(?<!^)([A-Z])", r"_\1", e).lower() for e in EVENTS}

HOOK = r'''
import json, os, sys, time
started = time.time()
here = os.path.dirname(os.path.abspath(__file__))
event, tag = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"_raw": raw}
seen = {}
# What the session file holds when the hook runs: has the call's output
# (and its exit code) been written yet?
call_id, transcript = payload.get("tool_use_id"), payload.get("transcript_path")
if call_id and transcript and os.path.exists(transcript):
    for line in open(transcript):
        if call_id not in line:
            continue
        record = json.loads(line)
        body = record.get("payload", {})
        kind = body.get("type")
        if kind == "item_completed":
            seen["item_completed"] = {k: body["item"].get(k) for k in ("type", "exit_code", "status")}
        elif kind in ("function_call_output", "custom_tool_call_output"):
            seen["output"] = True
env = {k: v for k, v in os.environ.items() if k.startswith(("CODEX", "PLUGIN", "CLAUDE"))}
with open(os.path.join(os.environ.get("CAPTURE_LOG_DIR", here), "payloads.jsonl"), "a") as log:
    log.write(json.dumps({"event": event, "tag": tag, "payload": payload, "env": env, "cwd": os.getcwd(),
                          "transcript_at_hook": seen, "started": started}) + "\n")
try:
    modes = json.load(open(os.path.join(here, "modes.json")))
except (OSError, ValueError):
    modes = {}
key = payload.get("tool_use_id") or payload.get("source") or ""
mode = modes.get(f"{event}:{key}", modes.get(event, ""))
say = f"CTX-{event}-{key}"
if mode == "context":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": say}}))
elif mode == "big":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": say + " " + "x" * 20000}}))
elif mode == "plain":
    print("PLAIN-" + say)
elif mode == "invalid":
    print("{not json PLAIN-" + say)
elif mode == "exit1":
    print("STDOUT-E1-" + say)
    print("STDERR-E1-" + say, file=sys.stderr)
    sys.exit(1)
elif mode == "exit2":
    print("STDERR-E2-" + say, file=sys.stderr)
    sys.exit(2)
elif mode == "slow":
    time.sleep(5)
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": "SLOW-" + say}}))
elif mode == "system":
    print(json.dumps({"systemMessage": "SYS-" + say}))
elif mode == "block" and not payload.get("stop_hook_active"):
    print(json.dumps({"decision": "block", "reason": "BLOCK-" + say}))
elif mode == "deny":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "deny",
                                             "permissionDecisionReason": "DENY-" + say}}))
'''

# A stdio MCP server with two tools, one that fails.
MCP_SERVER = r'''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method, result = msg.get("method"), None
    if method == "initialize":
        result = {"protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "probe", "version": "1"}}
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
        result = {"tools": [{"name": "lookup", "description": "Look a word up.", "inputSchema": schema},
                            {"name": "explode", "description": "Always fails.", "inputSchema": schema}]}
    elif method == "tools/call":
        name, args = msg["params"]["name"], msg["params"].get("arguments", {})
        if name == "lookup":
            result = {"content": [{"type": "text", "text": "found " + args.get("word", "")}]}
        else:
            result = {"content": [{"type": "text", "text": "ValueError: cannot explode " + args.get("word", "")}],
                      "isError": True}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
'''


def default_codex():
    plat, triple = TRIPLES[(platform.system(), platform.machine())]
    return ROOT / ".cache/codex/node_modules/@openai" / f"codex-{plat}" / "vendor" / triple / "bin/codex"


def canonical(value):
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def trust_hash(event, handler, matcher=None):
    """Codex's hook trust hash (0.171.0): sha256 of the compact, key-sorted
    JSON of {event_name: <snake label>, matcher (unless unset, or the event
    takes none), hooks: [<the handler,
    normalized: type, command, timeout (600 when unset; for SessionEnd and
    Interrupt 1 when unset, at most 3), async (false when unset),
    statusMessage when set>]}."""
    timeout = max(1, handler.get("timeout", 600))
    if event in SHORT_EVENTS:  # default 1 s, clamped to 3 s
        timeout = min(max(1, handler.get("timeout", 1)), 3)
    normalized = {"type": "command", "command": handler["command"],
                  "timeout": timeout, "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        normalized["statusMessage"] = handler["statusMessage"]
    identity = {"event_name": LABELS[event], "hooks": [normalized]}
    if matcher is not None and event not in NO_MATCHER_EVENTS:
        identity["matcher"] = matcher
    data = json.dumps(canonical(identity), separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def trust_toml(source, hooks):
    """`[hooks.state]` entries that trust every handler of `hooks` (a
    hooks.json "hooks" object) loaded from `source`; the key is
    `<source path>:<event label>:<group index>:<handler index>`."""
    lines = []
    for event, groups in hooks.items():
        if event not in LABELS or event == "PostToolUseFailure":
            continue
        for g, group in enumerate(groups):
            for h, handler in enumerate(group["hooks"]):
                key = f"{source}:{LABELS[event]}:{g}:{h}"
                lines.append(f'\n[hooks.state."{key}"]\ntrusted_hash = "{trust_hash(event, handler, group.get("matcher"))}"\n')
    return "".join(lines)


class Capture:
    def __init__(self, codex, out):
        self.codex, self.out = Path(codex), Path(out)
        self.checks = []
        self.facts = {}

    def check(self, name, ok, detail=""):
        self.checks.append({"check": name, "ok": bool(ok), "detail": detail})
        print(("ok    " if ok else "FAIL  ") + name + (f": {detail}" if detail and not ok else ""))

    # -- a scenario's directories ---------------------------------------
    def scenario(self, name):
        base = self.out / name
        if base.exists():
            shutil.rmtree(base)
        home, project, fake_home = base / "codex-home", base / "project", base / "home"
        for d in (home, project, fake_home):
            d.mkdir(parents=True)
        (base / "hook.py").write_text(HOOK)
        return base, home, project, fake_home

    @staticmethod
    def tmpdir(base):
        (base / "tmp").mkdir(exist_ok=True)
        return base / "tmp"

    def recorder(self, base, event, tag="", timeout=10, **extra):
        return {"type": "command", "command": f"python3 {base / 'hook.py'} {event} {tag}".strip(),
                "timeout": timeout, **extra}

    def all_events(self, base, timeout=10):
        return {e: [{"hooks": [self.recorder(base, e, timeout=timeout)]}] for e in EVENTS}

    def git_project(self, project, files):
        for name, body in files.items():
            (project / name).write_text(body)
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"],
                     ["remote", "add", "origin", "https://example.invalid/team/project.git"]):
            subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)

    def run(self, base, home, project, fake_home, script, prompt, *args, config_extra="",
            sub=("exec",), url_holder=None, timeout=180):
        """One `codex exec` against a fresh stand-in; returns (proc, requests)."""
        with StandIn(script, log=base / "requests.jsonl") as standin:
            (home / "config.toml").write_text(config_toml(standin.url) + config_extra)
            env = {"PATH": os.environ["PATH"], "HOME": str(fake_home), "CODEX_HOME": str(home),
                   "STANDIN_API_KEY": "sk-dummy-not-a-key", "CAPTURE_LOG_DIR": str(base), "LANG": "C.UTF-8",
                   "TMPDIR": str(self.tmpdir(base))}
            started = time.time()
            # exec's options go before a subcommand (`exec [OPTIONS] resume --last PROMPT`)
            proc = subprocess.run([str(self.codex), sub[0], "--skip-git-repo-check", *args, *sub[1:], prompt],
                                  cwd=project, env=env, capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
            proc.elapsed = time.time() - started
            with open(base / "stdout.txt", "a") as f:
                f.write(proc.stdout)
            with open(base / "stderr.txt", "a") as f:
                f.write(proc.stderr)
            return proc, list(standin.requests)

    def payloads(self, base):
        log = base / "payloads.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def rollouts(self, home, base=None):
        files = sorted((home / "sessions").rglob("rollout-*.jsonl"))
        if base:
            for f in files:
                shutil.copy(f, base / f.name)
        return files

    def app_server(self, home, project, fake_home, extra_env=None):
        """A `codex app-server` on stdio (JSON-RPC, one message a line),
        initialized; returns (process, request)."""
        env = {"PATH": os.environ["PATH"], "HOME": str(fake_home), "CODEX_HOME": str(home), **(extra_env or {})}
        proc = subprocess.Popen([str(self.codex), "app-server"], cwd=project, env=env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        state = {"id": 0, "notes": []}

        def request(method, params, wait=True, until=None, limit=120):
            state["id"] += 1
            proc.stdin.write(json.dumps({"id": state["id"], "method": method, "params": params}) + "\n")
            proc.stdin.flush()
            answer, deadline = None, time.time() + limit
            while time.time() < deadline:
                line = proc.stdout.readline()
                if not line:
                    break
                message = json.loads(line)
                if message.get("id") == state["id"] and "method" not in message:
                    answer = message
                    if until is None:
                        return answer
                elif "method" in message:
                    state["notes"].append(message)
                    if until and message["method"] == until:
                        return answer
            if until is None:
                raise RuntimeError(f"app-server gave no answer to {method}")
            return answer

        request("initialize", {"clientInfo": {"name": "errkb-capture", "version": "0"}})
        proc.stdin.write(json.dumps({"method": "initialized"}) + "\n")
        proc.stdin.flush()
        request.notes = state["notes"]
        return proc, request

    def hooks_list(self, home, project, fake_home):
        """`codex app-server`'s hooks/list for `project`."""
        proc, request = self.app_server(home, project, fake_home)
        try:
            return request("hooks/list", {"cwds": [str(project)]})["result"]["data"][0]
        finally:
            proc.stdin.close()
            proc.terminate()
            proc.wait(timeout=10)

    def app_turn(self, base, home, project, fake_home, script, prompt, config_extra=""):
        """One turn through the app-server (thread/start, turn/start): its
        hook/started and hook/completed notifications say how each hook ran
        (status, output entries), which `codex exec` does not print."""
        with StandIn(script, log=base / "requests.jsonl") as standin:
            (home / "config.toml").write_text(config_toml(standin.url) + config_extra)
            proc, request = self.app_server(home, project, fake_home,
                                            {"STANDIN_API_KEY": "sk-dummy-not-a-key", "CAPTURE_LOG_DIR": str(base),
                                             "TMPDIR": str(self.tmpdir(base))})
            try:
                thread = request("thread/start", {"cwd": str(project), "approvalPolicy": "never",
                                                  "sandbox": "workspace-write"})["result"]["thread"]["id"]
                request("turn/start", {"threadId": thread, "input": [{"type": "text", "text": prompt}]},
                        until="turn/completed")
                return [n["params"]["run"] for n in request.notes if n["method"] == "hook/completed"]
            finally:
                proc.stdin.close()
                proc.terminate()
                proc.wait(timeout=10)

    # -- scenarios --------------------------------------------------------
    def story(self):
        """Commands that fail and succeed, a long one, patches that work and
        fail, big output; all events recorded; context from SessionStart,
        UserPromptSubmit, PreToolUse and PostToolUse."""
        base, home, project, fake_home = self.scenario("story")
        self.git_project(project, {"report.py": "total = 3\nprint('total: ' + total)\n"})
        hooks = self.all_events(base)
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=1))
        (base / "modes.json").write_text(json.dumps({e: "context" for e in
                                                     ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")}))
        listed = self.hooks_list(home, project, fake_home)
        ours = {f"{home / 'hooks.json'}:{LABELS[e]}:0:0": trust_hash(e, hooks[e][0]["hooks"][0]) for e in EVENTS}
        self.facts["hooks_list"] = [{k: h.get(k) for k in ("key", "eventName", "trustStatus", "timeoutSec")}
                                    for h in listed["hooks"]]
        self.facts["hooks_list_warnings"] = listed["warnings"] + [e["message"] for e in listed["errors"]]
        self.check("hooks/list lists 12 events, PostToolUseFailure not among them",
                   len(listed["hooks"]) == 12 and not any("failure" in h["key"] for h in listed["hooks"]))
        self.check("our trust hash equals Codex's currentHash for every hook",
                   all(ours.get(h["key"]) == h["currentHash"] for h in listed["hooks"]),
                   json.dumps([(h["key"], h["currentHash"], ours.get(h["key"])) for h in listed["hooks"]]))
        self.check("hooks start untrusted", all(h["trustStatus"] == "untrusted" for h in listed["hooks"]))

        def poll(body):
            out = output_of([body], "s_4")["output"]
            found = re.search(r"session ID (\d+)", out)
            return [call("s_5", "write_stdin", session_id=int(found.group(1)) if found else 0,
                         yield_time_ms=5000)]

        script = {
            "start:STORY-ONE": [shell("s_1", "python3 report.py")],
            "after:s_1": [shell("s_2", "no-such-tool --version")],
            "after:s_2": [shell("s_3", "echo out; echo err >&2; exit 0")],
            "after:s_3": [shell("s_4", "sleep 2; echo late; exit 3", yield_time_ms=250)],
            "after:s_4": poll,
            "after:s_5": [patch("s_6", "*** Begin Patch\n*** Update File: report.py\n@@\n-print('total: ' + total)\n"
                                       "+print('total: ' + str(total))\n*** End Patch\n")],
            "after:s_6": [patch("s_7", "*** Begin Patch\n*** Add File: notes/todo.txt\n+one\n*** Delete File: gone.txt\n"
                                       "*** End Patch\n")],
            "after:s_7": [patch("s_8", "*** Begin Patch\n*** Update File: report.py\n@@\n-no such line\n+two\n"
                                       "*** End Patch\n")],
            "after:s_8": [shell("s_9", "seq 1 30000")],
            "after:s_9": [shell("s_10", "python3 report.py", workdir=str(project / "notes"))],
            "after:s_10": [text("done")],
        }
        (project / "gone.txt").write_text("bye\n")
        # gone.txt is uncommitted: the worktree is dirty for session_meta's git info
        proc, requests = self.run(base, home, project, fake_home, script, "STORY-ONE fix the report",
                                  "-s", "workspace-write", config_extra=trust_toml(home / "hooks.json", hooks))
        self.check("story: codex exec exits 0", proc.returncode == 0, proc.stderr[-2000:])
        payloads = self.payloads(base)
        self.rollouts(home, base)
        by_event = {}
        for p in payloads:
            by_event.setdefault(p["event"], []).append(p)
        self.facts["story_events_fired"] = {e: len(v) for e, v in by_event.items()}
        self.check("trusted hooks run without --dangerously-bypass-hook-trust", "PreToolUse" in by_event)
        self.check("PostToolUseFailure never fires", "PostToolUseFailure" not in by_event)
        self.facts["story_payload_keys"] = {e: sorted(v[0]["payload"]) for e, v in by_event.items()}
        post = {p["payload"]["tool_use_id"]: p for p in by_event.get("PostToolUse", [])}
        pre = {p["payload"]["tool_use_id"]: p for p in by_event.get("PreToolUse", [])}
        self.facts["story_pre"] = {k: {"tool_name": v["payload"]["tool_name"], "tool_input": v["payload"]["tool_input"]}
                                   for k, v in pre.items()}
        self.facts["story_post"] = {k: {"tool_name": v["payload"]["tool_name"], "tool_input": v["payload"]["tool_input"],
                                        "tool_response": (v["payload"]["tool_response"][:300]
                                                          if isinstance(v["payload"]["tool_response"], str)
                                                          else v["payload"]["tool_response"]),
                                        "tool_response_chars": len(json.dumps(v["payload"]["tool_response"])),
                                        "transcript_at_hook": v["transcript_at_hook"],
                                        "payload_cwd": v["payload"]["cwd"], "hook_process_cwd": v["cwd"]}
                                    for k, v in post.items()}
        self.facts["story_model_outputs"] = {c: output_of(requests, c)["output"][:300] for c in
                                             ["s_1", "s_2", "s_3", "s_4", "s_5", "s_6", "s_7", "s_8", "s_10"]}
        self.check("a failing command (exit 1) fires PostToolUse", "s_1" in post)
        self.check("PostToolUse tool_response for Bash is the output text only (no exit code)",
                   isinstance(post.get("s_1", {}).get("payload", {}).get("tool_response"), str)
                   and "exit" not in post["s_1"]["payload"]["tool_response"].lower())
        self.check("a failed apply_patch fires no PostToolUse", "s_8" in pre and "s_8" not in post)
        self.check("a command's exit code is in the session file when PostToolUse runs",
                   all(post[c]["transcript_at_hook"].get("item_completed", {}).get("exit_code") is not None
                       for c in ("s_1", "s_2", "s_3", "s_4")))
        self.check("a command still running when its call returns fires PostToolUse when it exits, with its own id",
                   post.get("s_4", {}).get("payload", {}).get("tool_response") == "late\n" and "s_5" not in post)
        contexts = {}
        for c in ["s_1", "s_2", "s_3", "s_6", "s_9"]:
            _, around = items_around(requests, c)
            contexts[c] = [{"role": i.get("role"), "type": i.get("type"), "texts": developer_texts([i])} for i in around]
        self.facts["story_context_items"] = contexts
        self.check("PreToolUse and PostToolUse additionalContext reach the model as developer messages",
                   developer_texts(items_around(requests, "s_1")[1]) == ["CTX-PreToolUse-s_1", "CTX-PostToolUse-s_1"])
        first = requests[0]["input"]
        self.facts["story_first_request_roles"] = [(i.get("role"), message_head(i)) for i in first]
        self.check("SessionStart and UserPromptSubmit context reach the model as developer messages",
                   any(i.get("role") == "developer" and "CTX-SessionStart-startup" in json.dumps(i) for i in first)
                   and any(i.get("role") == "developer" and "CTX-UserPromptSubmit" in json.dumps(i) for i in first))
        ends = [p for p in payloads if p["event"] == "SessionEnd"]
        self.check("SessionEnd fires at the end of codex exec", len(ends) == 1)

    def answers(self):
        """What Codex does with each kind of hook answer."""
        base, home, project, fake_home = self.scenario("answers")
        hooks = self.all_events(base, timeout=2)
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=1))
        modes = {"SessionStart": "plain", "UserPromptSubmit": "plain",
                 "PostToolUse:a_1": "plain", "PostToolUse:a_2": "invalid", "PostToolUse:a_3": "exit1",
                 "PostToolUse:a_4": "exit2", "PostToolUse:a_5": "slow", "PostToolUse:a_6": "system",
                 "PostToolUse:a_7": "block", "PostToolUse:a_8": "big",
                 "PreToolUse:a_9": "exit2", "PreToolUse:a_10": "plain", "PreToolUse:a_11": "deny",
                 "Stop": "block"}
        (base / "modes.json").write_text(json.dumps(modes))
        script = {"start:ANSWERS": [shell("a_1", "echo one")]}
        for n in range(1, 11):
            script[f"after:a_{n}"] = [shell(f"a_{n + 1}", f"echo ran-{n + 1} > ran-{n + 1}.txt; echo {n + 1}")]
        script["after:a_11"] = [text("done")]
        proc, requests = self.run(base, home, project, fake_home, script, "ANSWERS",
                                  "-s", "workspace-write", config_extra=trust_toml(home / "hooks.json", hooks))
        self.check("answers: codex exec exits 0", proc.returncode == 0, proc.stderr[-2000:])
        self.rollouts(home, base)
        seen = {}
        for c in [f"a_{n}" for n in range(1, 12)]:
            try:
                index, around = items_around(requests, c)
                seen[c] = {"around": [message_head(i, 200) for i in around],
                           "output": output_of(requests, c)["output"][:300]}
            except AssertionError as e:
                seen[c] = {"error": str(e)}
        seen["first_request"] = [message_head(i, 200) for i in requests[0]["input"] if i.get("role") != "assistant"][2:]
        seen["ran_files"] = sorted(p.name for p in project.glob("ran-*.txt"))
        seen["stderr_hook_lines"] = [line for line in proc.stderr.splitlines() if "hook" in line.lower()]
        seen["requests"] = len(requests)
        seen["elapsed_s"] = round(proc.elapsed, 1)
        seen["last_request_tail"] = [message_head(i, 300) for i in requests[-1]["input"][-4:]]
        self.facts["answers"] = seen
        # the same answers once more through the app-server, whose hook/completed
        # notifications say how Codex judged each hook run
        runs = self.app_turn(base, home, project, fake_home, script, "ANSWERS",
                             config_extra=trust_toml(home / "hooks.json", hooks))
        self.facts["answers_hook_runs"] = [{"event": r["eventName"], "id": r["id"].rsplit(":", 1)[-1],
                                            "status": r["status"],
                                            "entries": [{**e, "text": e["text"][:200]} for e in r["entries"]],
                                            "durationMs": r.get("durationMs")} for r in runs]
        big = json.dumps(seen.get("a_8", {}))
        spilled = re.search(r"Full hook output saved to: ([^\s\"\\]+)", json.dumps(requests[-1]["input"]))
        self.facts["answers_spill_path"] = spilled.group(1) if spilled else None
        self.check("a big additionalContext is spilled to $TMPDIR/hook_outputs/<session>/",
                   spilled and spilled.group(1).startswith(str(self.tmpdir(base) / "hook_outputs")))
        self.check("plain stdout of PostToolUse does not reach the model",
                   "PLAIN-" not in json.dumps(seen.get("a_1", {}).get("around")))
        self.check("a big additionalContext is not passed whole", "x" * 20000 not in big)

    def resume(self):
        """A second turn with `codex exec resume --last`."""
        base, home, project, fake_home = self.scenario("resume")
        hooks = self.all_events(base)
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=1))
        trust = trust_toml(home / "hooks.json", hooks)
        self.run(base, home, project, fake_home, {"start:FIRST": [shell("r_1", "false")], "after:r_1": [text("one")]},
                 "FIRST", "-s", "workspace-write", config_extra=trust)
        proc, requests = self.run(base, home, project, fake_home,
                                  {"start:SECOND": [shell("r_2", "true")], "after:r_2": [text("two")]},
                                  "SECOND", "-s", "workspace-write",
                                  config_extra=trust, sub=("exec", "resume", "--last"))
        self.facts["resume_second_request_items"] = [message_head(i, 80) for i in requests[0]["input"]]
        self.check("resume: codex exec resume exits 0", proc.returncode == 0, proc.stderr[-2000:])
        payloads = self.payloads(base)
        starts = [p["payload"] for p in payloads if p["event"] == "SessionStart"]
        self.facts["resume_session_starts"] = [{k: s.get(k) for k in ("source", "session_id", "transcript_path")}
                                               for s in starts]
        self.facts["resume_rollouts"] = [f.name for f in self.rollouts(home, base)]
        self.check("resume: SessionStart source is 'resume' with the same session id",
                   len(starts) == 2 and starts[1]["source"] == "resume"
                   and starts[0]["session_id"] == starts[1]["session_id"])

    def config_toml(self):
        """Hooks in config.toml's [hooks] instead of hooks.json."""
        base, home, project, fake_home = self.scenario("config_toml")
        handler = self.recorder(base, "PostToolUse", "toml")
        toml = ("\n[[hooks.PostToolUse]]\nmatcher = \"Bash\"\n[[hooks.PostToolUse.hooks]]\n"
                f"type = \"command\"\ncommand = \"{handler['command']}\"\ntimeout = 10\n")
        source = home / "config.toml"
        trust = trust_toml(source, {"PostToolUse": [{"matcher": "Bash", "hooks": [handler]}]})
        proc, _ = self.run(base, home, project, fake_home,
                           {"start:TOML": [shell("t_1", "echo toml")], "after:t_1": [text("done")]},
                           "TOML", "-s", "workspace-write", config_extra=toml + trust)
        fired = [p for p in self.payloads(base) if p["tag"] == "toml"]
        self.check("[hooks] in config.toml runs (trusted by its config.toml key)", len(fired) == 1,
                   proc.stderr[-1500:])

    def matchers(self):
        """Which matcher strings select which tools."""
        base, home, project, fake_home = self.scenario("matchers")
        tried = ["Bash", "^Bash$", "Ba", "bash", "shell", "exec_command", "apply_patch", "Edit", "Write",
                 "Edit|Write", "^(Bash|apply_patch)$", "*", "", "mcp__.*", None]
        groups = [{"matcher": m, "hooks": [self.recorder(base, "PreToolUse", f"m{i}")]} if m is not None
                  else {"hooks": [self.recorder(base, "PreToolUse", f"m{i}")]} for i, m in enumerate(tried)]
        groups.append({"matcher": "[", "hooks": [self.recorder(base, "PreToolUse", "bad")]})
        hooks = {"PreToolUse": groups}
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=1))
        listed = self.hooks_list(home, project, fake_home)
        self.facts["matcher_warnings"] = listed["warnings"]
        script = {"start:MATCH": [shell("m_1", "true")],
                  "after:m_1": [patch("m_2", "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n")],
                  "after:m_2": [text("done")]}
        self.run(base, home, project, fake_home, script, "MATCH", "-s", "workspace-write",
                 config_extra=trust_toml(home / "hooks.json", hooks))
        fired = {}
        for p in self.payloads(base):
            fired.setdefault(p["payload"]["tool_name"], []).append(p["tag"])
        table = {json.dumps(m): {tool: f"m{i}" in tags for tool, tags in fired.items()} for i, m in enumerate(tried)}
        table['"[" (invalid)'] = {tool: "bad" in tags for tool, tags in fired.items()}
        self.facts["matchers"] = table
        self.check("matcher 'Bash' selects the shell tool, not apply_patch",
                   table['"Bash"'].get("Bash") and not table['"Bash"'].get("apply_patch"))

    def project(self):
        """A project's .codex/hooks.json, before and after the project is trusted."""
        base, home, project, fake_home = self.scenario("project")
        self.git_project(project, {"README": "x\n"})
        (project / ".codex").mkdir()
        hooks = {"PostToolUse": [{"hooks": [self.recorder(base, "PostToolUse", "project")]}]}
        (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        script = {"start:PROJ": [shell("p_1", "echo hi")], "after:p_1": [text("done")]}
        trust = trust_toml(project / ".codex" / "hooks.json", hooks)
        self.run(base, home, project, fake_home, script, "PROJ", "-s", "workspace-write", config_extra=trust)
        untrusted_project = len(self.payloads(base))
        listed = self.hooks_list(home, project, fake_home)
        project_trust = f'\n[projects."{project}"]\ntrust_level = "trusted"\n'
        self.run(base, home, project, fake_home, script, "PROJ", "-s", "workspace-write",
                 config_extra=project_trust + trust)
        trusted_project = len(self.payloads(base)) - untrusted_project
        self.facts["project_hooks"] = {"fired_in_untrusted_project": untrusted_project,
                                       "fired_in_trusted_project": trusted_project,
                                       "hooks_list_untrusted_project": [h["key"] for h in listed["hooks"]]}
        self.check("project .codex/hooks.json runs once the project is trusted", trusted_project == 1)

    def plugin(self):
        """A plugin with hooks/hooks.json, from a local marketplace."""
        base, home, project, fake_home = self.scenario("plugin")
        market = base / "market"
        plug = market / "plugins" / "probe"
        (plug / ".codex-plugin").mkdir(parents=True)
        (plug / "hooks").mkdir()
        (market / ".agents" / "plugins").mkdir(parents=True)
        (plug / ".codex-plugin" / "plugin.json").write_text(json.dumps(
            {"name": "probe", "version": "0.1.0", "description": "records hook payloads"}))
        command = f"python3 {base / 'hook.py'} PostToolUse plugin ${{PLUGIN_ROOT}}"
        (plug / "hooks" / "hooks.json").write_text(json.dumps(
            {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 10}]}]}}))
        (market / ".agents" / "plugins" / "marketplace.json").write_text(json.dumps(
            {"name": "probe-market", "plugins": [{"name": "probe", "source": {"source": "local", "path": "./plugins/probe"},
                                                   "policy": {"installation": "AVAILABLE"}}]}))
        env = {"PATH": os.environ["PATH"], "HOME": str(fake_home), "CODEX_HOME": str(home)}
        steps = []
        for args in (["plugin", "marketplace", "add", str(market)], ["plugin", "add", "probe@probe-market"],
                     ["plugin", "list"]):
            r = subprocess.run([str(self.codex), *args], env=env, cwd=project, capture_output=True, text=True, timeout=60)
            steps.append({"args": args, "rc": r.returncode, "out": (r.stdout + r.stderr)[-800:]})
        self.facts["plugin_install"] = steps
        self.facts["plugin_config"] = (home / "config.toml").read_text() if (home / "config.toml").exists() else ""
        self.facts["plugin_files"] = sorted(str(p.relative_to(home)) for p in (home / "plugins").rglob("*")
                                            if p.is_file()) if (home / "plugins").exists() else []
        listed = self.hooks_list(home, project, fake_home)
        self.facts["plugin_hooks_list"] = [{k: h.get(k) for k in ("key", "source", "pluginId", "command",
                                                                   "trustStatus", "currentHash")} for h in listed["hooks"]]
        config_before = self.facts["plugin_config"]
        script = {"start:PLUG": [shell("g_1", "echo plug")], "after:g_1": [text("done")]}
        self.run(base, home, project, fake_home, script, "PLUG", "-s", "workspace-write",
                 config_extra=strip_model(config_before))
        untrusted = len(self.payloads(base))
        # hooks/list shows the plugin hook's currentHash as "<hook hash>/<plugin contents hash>";
        # trusted_hash must be the first part alone (the whole string reads as "modified"),
        # computed from the command before ${PLUGIN_ROOT} is substituted
        plugin_hooks = json.loads((plug / "hooks" / "hooks.json").read_text())["hooks"]
        trust = trust_toml("probe@probe-market:hooks/hooks.json", plugin_hooks)
        self.check("our trust hash equals the first part of a plugin hook's currentHash",
                   listed["hooks"] and listed["hooks"][0]["currentHash"].split("/")[0]
                   == trust_hash("PostToolUse", plugin_hooks["PostToolUse"][0]["hooks"][0], "Bash"))
        self.run(base, home, project, fake_home, script, "PLUG", "-s", "workspace-write",
                 config_extra=strip_model(config_before) + trust)
        fired = self.payloads(base)[untrusted:]
        self.facts["plugin_hook"] = {"fired_untrusted": untrusted, "fired_trusted": len(fired),
                                     "argv_env": [(p["tag"], p["env"]) for p in fired]}
        self.check("a plugin's hooks/hooks.json runs once trusted", len(fired) == 1)

    def mcp(self):
        """An MCP tool call, as the hooks and the model see it."""
        base, home, project, fake_home = self.scenario("mcp")
        (base / "mcp_server.py").write_text(MCP_SERVER)
        hooks = {e: [{"hooks": [self.recorder(base, e)]}] for e in ("PreToolUse", "PostToolUse")}
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        mcp = f'\n[mcp_servers.probe]\ncommand = "python3"\nargs = ["{base / "mcp_server.py"}"]\n'
        # MCP tools are deferred: the model finds them with tool_search first
        found = {}

        def after_search(body):
            result = output_of([body], "x_0")
            found["tool_search_output"] = result
            names = []
            for tool in result.get("tools", []):
                for inner in tool.get("tools", [tool]):
                    names.append((tool.get("name") if tool.get("type") == "namespace" else None, inner.get("name")))
            found["names"] = names
            namespace, name = next(((ns, n) for ns, n in names if n and "lookup" in n), ("mcp__probe", "lookup"))
            found["call"] = (namespace, name)
            return [call("x_1", name, namespace=namespace, word="apple")]

        def second(body):
            namespace, name = found["call"]
            return [call("x_2", name.replace("lookup", "explode"), namespace=namespace, word="pear")]

        script = {"start:MCP": [search("x_0", "probe lookup")], "after:x_0": after_search,
                  "after:x_1": second, "after:x_2": [text("done")]}
        # under approval "never" an MCP call is refused ("MCP tool call requires
        # approval, but approval policy is never"): run it unsandboxed
        proc, requests = self.run(base, home, project, fake_home, script, "MCP",
                                  "--dangerously-bypass-approvals-and-sandbox",
                                  config_extra=trust_toml(home / "hooks.json", hooks) + mcp)
        self.rollouts(home, base)
        self.facts["mcp_tool_search"] = found
        self.facts["mcp_payloads"] = [{k: p["payload"].get(k) for k in ("hook_event_name", "tool_name", "tool_input",
                                                                         "tool_response")} for p in self.payloads(base)]
        self.facts["mcp_outputs"] = {c: output_of(requests, c).get("output") for c in ("x_1", "x_2")
                                     if any(c in json.dumps(r) for r in requests)}
        self.check("an MCP call fires PreToolUse and PostToolUse; one whose result has isError fires no PostToolUse",
                   [p["event"] for p in self.payloads(base)] == ["PreToolUse", "PostToolUse", "PreToolUse"],
                   proc.stderr[-1500:])

    def subagent(self):
        """A sub-agent (multi_agent_v1's spawn_agent, found with tool_search)
        that runs a failing command while the parent waits for it."""
        base, home, project, fake_home = self.scenario("subagent")
        hooks = self.all_events(base)
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=1))
        found = {}

        def after_spawn(body):
            out = output_of([body], "sa_1")["output"]
            found["spawn_output"] = out
            agent = json.loads(out if isinstance(out, str) else out[0]["text"]).get("agent_id")
            return [call("sa_2", "wait_agent", namespace="multi_agent_v1", targets=[agent], timeout_ms=60000)]

        script = {"start:SUB": [search("sa_0", "spawn sub-agent")],
                  "after:sa_0": [call("sa_1", "spawn_agent", namespace="multi_agent_v1",
                                      message="HELPER-FIX run the check", agent_type="worker")],
                  "after:sa_1": after_spawn,
                  "start:HELPER-FIX": [shell("h_1", "python3 -c 'import nosuch'")],
                  "after:h_1": [text("helper done")],
                  "after:sa_2": [text("done")]}
        proc, requests = self.run(base, home, project, fake_home, script, "SUB", "-s", "workspace-write",
                                  config_extra=trust_toml(home / "hooks.json", hooks))
        self.rollouts(home, base)
        payloads = self.payloads(base)
        self.facts["subagent_payloads"] = [{k: v for k, v in p["payload"].items()
                                            if k not in ("transcript_path", "model", "permission_mode", "cwd")}
                                           for p in payloads]
        self.facts["subagent_spawn_output"] = found.get("spawn_output")
        helper = [p["payload"] for p in payloads if p["payload"].get("tool_use_id") == "h_1"]
        parent = payloads[0]["payload"]["session_id"] if payloads else None
        self.check("a sub-agent's tool calls fire PreToolUse/PostToolUse with the parent's session_id, "
                   "agent_id and agent_type",
                   len(helper) == 2 and all(h["session_id"] == parent and h.get("agent_type") == "worker"
                                            and h.get("agent_id") for h in helper), proc.stderr[-1500:])
        self.check("SubagentStart and SubagentStop fire",
                   {"SubagentStart", "SubagentStop"} <= {p["event"] for p in payloads})

    def approval(self):
        """permission_mode as hooks see it under other approval policies."""
        base, home, project, fake_home = self.scenario("approval")
        hooks = {"PreToolUse": [{"hooks": [self.recorder(base, "PreToolUse")]}]}
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        trust = trust_toml(home / "hooks.json", hooks)
        modes = {}
        for label, args in (("exec default (read-only)", []), ("workspace-write", ["-s", "workspace-write"]),
                            ("on-request", ["-c", 'approval_policy="on-request"']),
                            ("bypass", ["--dangerously-bypass-approvals-and-sandbox"])):
            before = len(self.payloads(base))
            self.run(base, home, project, fake_home,
                     {"start:APPR": [shell("ap_1", "true")], "after:ap_1": [text("done")]}, "APPR", *args,
                     config_extra=trust)
            got = self.payloads(base)[before:]
            modes[label] = got[0]["payload"].get("permission_mode") if got else None
        self.facts["permission_mode"] = modes


def strip_model(config):
    """The plugin lines `codex plugin add` wrote, without the stand-in's
    provider lines (which run() writes itself)."""
    keep, skip = [], False
    for line in config.splitlines():
        if line.startswith("["):
            skip = line.startswith("[model_providers")
        elif not line.startswith(" ") and re.match(r"^(model|model_provider)\s*=", line):
            continue
        if not skip:
            keep.append(line)
    return "\n" + "\n".join(keep) + "\n"


def message_head(item, n=160):
    kind = item.get("type")
    if kind == "message":
        words = " | ".join(t for t in (p.get("text", "") for p in item.get("content") or []))
        return f"{item.get('role')}: {words[:n]}"
    if kind in ("function_call_output", "custom_tool_call_output"):
        out = item.get("output")
        return f"{kind}({item.get('call_id')}): {(out if isinstance(out, str) else json.dumps(out))[:n]}"
    if kind in ("function_call", "custom_tool_call"):
        return f"{kind}({item.get('call_id')}) {item.get('name')}"
    return kind


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--codex", default=str(default_codex()))
    parser.add_argument("--out", default=str(ROOT / ".cache" / "codex-capture"))
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args()
    if not Path(args.codex).exists():
        sys.exit(f"no Codex binary at {args.codex}: run `make codex` first")
    capture = Capture(args.codex, args.out)
    version = subprocess.run([args.codex, "--version"], capture_output=True, text=True).stdout.strip()
    capture.facts["version"] = version
    print(version)
    names = args.scenarios or ["story", "answers", "resume", "config_toml", "matchers", "project", "plugin",
                               "mcp", "subagent", "approval"]
    for name in names:
        print(f"== {name}")
        try:
            getattr(capture, name)()
        except Exception as e:  # keep going: one broken scenario should not hide the others
            capture.check(f"{name}: ran", False, f"{type(e).__name__}: {e}")
    capture.facts["checks"] = capture.checks
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "facts.json").write_text(json.dumps(capture.facts, indent=1, ensure_ascii=False))
    passed = sum(c["ok"] for c in capture.checks)
    print(f"{passed} passed, {len(capture.checks) - passed} failed")
    print(f"everything is in {args.out}")
    sys.exit(0 if passed == len(capture.checks) else 1)


if __name__ == "__main__":
    main()
