"""Claude Code transcripts in the real JSONL format, built to order: for the
`errkb learn` tests (small sessions with exactly the features a test needs)
and for its benchmark (`generate`, hundreds of megabytes of sessions).

The record shapes follow transcripts written by Claude Code 2.1.332 (read
off real runs of the client): one record per line; `assistant` records
carry `message.content` blocks with `tool_use`, `user` records the matching
`tool_result` (`is_error`) and a `toolUseResult`; subagents write
`isSidechain: true` records with their `agentId` to
`<session>/subagents/agent-<id>.jsonl` (older clients wrote sidechains into
the session's own file, without `agentId`); compaction leaves a `system`
record with `subtype: compact_boundary` and a summary; many other record
types (attachments, queue operations, request blobs) carry nothing errkb
needs.
"""
import datetime
import json
import random
import uuid as uuidlib
from pathlib import Path

VERSION = "2.1.332"
BETAS = ["claude-code-20250219", "interleaved-thinking-2025-05-14", "context-management-2025-06-27",
         "per-turn-control-2026-07-01", "mid-conversation-tool-changes-2026-07-01",
         "thinking-token-count-2026-05-13", "advanced-tool-use-2025-11-20", "effort-2025-11-24"]
STARTUP_TEXT = ("- review: Review the current changes for bugs, security problems and missing tests; "
                "report findings with file and line. Use when the user asks for a review.\n") * 6


class Session:
    def __init__(self, cwd="/home/dev/shop", session_id=None, start=None, version=VERSION, rng=None):
        self.rng = rng or random.Random(1)
        self.session_id = session_id or str(uuidlib.UUID(int=self.rng.getrandbits(128)))
        self.cwd = cwd
        self.version = version
        self.clock = start or datetime.datetime(2026, 10, 1, 9, 0, tzinfo=datetime.timezone.utc)
        self.records = []              # the session's own file
        self.subagents = {}            # agent id -> records of its own file
        self.parent = None
        self.ids = 0

    # -- helpers ---------------------------------------------------------
    def _uuid(self):
        return str(uuidlib.UUID(int=self.rng.getrandbits(128)))

    def _tick(self, ms=None):
        self.clock += datetime.timedelta(milliseconds=ms if ms is not None else self.rng.randint(20, 4000))
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def tool_id(self):
        self.ids += 1
        return f"toolu_{self.session_id[:8]}{self.ids:06d}"

    def _base(self, kind, agent=None, sidechain=False):
        record = {"parentUuid": self.parent, "isSidechain": sidechain or agent is not None, "type": kind,
                  "uuid": self._uuid(), "timestamp": self._tick(), "userType": "external",
                  "entrypoint": "cli", "cwd": self.cwd, "sessionId": self.session_id,
                  "version": self.version, "gitBranch": "main"}
        if agent:
            record["agentId"] = agent
        return record

    def _emit(self, record, agent=None):
        (self.subagents.setdefault(agent, []) if agent else self.records).append(record)
        self.parent = record["uuid"]
        return record

    # -- what happens in a session ---------------------------------------
    def prompt(self, text, agent=None):
        record = self._base("user", agent)
        record["message"] = {"role": "user", "content": text}
        self._emit(record, agent)

    def noise(self, agent=None):
        """Records of kinds errkb ignores, as the client writes them."""
        attachment = self._base("attachment", agent)
        attachment["attachment"] = {"type": "deferred_tools_delta", "addedNames": ["WebFetch"], "removedNames": []}
        self._emit(attachment, agent)
        (self.subagents.setdefault(agent, []) if agent else self.records).append(
            {"type": "queue-operation", "operation": "enqueue", "sessionId": self.session_id,
             "timestamp": self._tick(5)})

    def request(self, agent=None):
        """The bookkeeping records 2.1 writes for every model request."""
        own = self.subagents.setdefault(agent, []) if agent else self.records
        request_id = self._uuid()
        own.append({"type": "api-request", "sessionId": self.session_id, "id": request_id,
                    "timestamp": self._tick(3), "version": self.version, "querySource": "repl_main_thread",
                    "shapeHash": f"{self.rng.getrandbits(256):064x}",
                    "params": {"model": "claude-opus-5-5", "betas": BETAS, "max_tokens": 128000,
                               "thinking": {"type": "adaptive", "display": "omitted"},
                               "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
                               "output_config": {"effort": "medium"}},
                    "thread": {"type": "none"}, "echoWireToolInputs": False, "base": request_id,
                    "keep": 0, "tail": [f"{self.rng.getrandbits(256):064x}" for _ in range(3)]})
        own.append({"type": "last-prompt", "lastPrompt": "Fix the failing build and add the tests",
                    "leafUuid": self.parent, "sessionId": self.session_id})

    def startup(self):
        """What 2.1 writes when a session starts: the request shape (tools,
        system prompt) and the attachments listing skills and agents."""
        self.records.append({"type": "api-request-shape", "sessionId": self.session_id,
                             "shapeHash": f"{self.rng.getrandbits(256):064x}", "timestamp": self._tick(1),
                             "version": self.version,
                             "shape": {"system": STARTUP_TEXT * 12, "tools": [{"name": n, "description": STARTUP_TEXT}
                                                                             for n in ("Bash", "Read", "Edit", "Write", "Agent")]}})
        for kind in ("skill_listing", "agent_listing", "deferred_tools_delta"):
            attachment = self._base("attachment")
            attachment["attachment"] = {"type": kind, "content": STARTUP_TEXT * 4}
            attachment["rendered"] = [{"content": f"<system-reminder>\n{STARTUP_TEXT * 4}\n</system-reminder>"}]
            attachment["renderedRole"] = "system"
            self._emit(attachment)

    def calls(self, calls, agent=None, sidechain=False):
        """One assistant turn with these tool calls (parallel when several),
        then their results. Each call: (tool, input, result, is_error) with
        an optional 5th item, the toolUseResult."""
        self.request(agent)
        ids = []
        for tool, tool_input, *_ in calls:
            record = self._base("assistant", agent, sidechain)
            tool_id = self.tool_id()
            ids.append(tool_id)
            record["message"] = {"id": f"msg_{self.rng.getrandbits(40):x}", "type": "message", "role": "assistant",
                                 "model": "claude-opus-5-5", "stop_reason": "tool_use",
                                 "content": [{"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}],
                                 "usage": {"input_tokens": 3, "output_tokens": 40}}
            self._emit(record, agent)
        for tool_id, (tool, tool_input, result, is_error, *extra) in zip(ids, calls):
            record = self._base("user", agent, sidechain)
            block = {"tool_use_id": tool_id, "type": "tool_result", "content": result}
            if is_error is not None:
                block["is_error"] = is_error
            record["message"] = {"role": "user", "content": [block]}
            record["toolUseResult"] = extra[0] if extra else (f"Error: {result}" if is_error else {"stdout": result})
            record["sourceToolAssistantUUID"] = self.parent
            self._emit(record, agent)
        return ids

    def call(self, tool, tool_input, result="", is_error=False, agent=None, sidechain=False, tool_use_result=None):
        extra = [tool_use_result] if tool_use_result is not None else []
        return self.calls([(tool, tool_input, result, is_error, *extra)], agent, sidechain)[0]

    def bash(self, command, output="", error=None, agent=None, sidechain=False):
        if error is not None:
            return self.call("Bash", {"command": command, "description": "run"}, error, True, agent, sidechain)
        return self.call("Bash", {"command": command, "description": "run"}, output, False, agent, sidechain)

    def text(self, words, agent=None):
        record = self._base("assistant", agent)
        record["message"] = {"role": "assistant", "content": [{"type": "text", "text": words}]}
        self._emit(record, agent)

    def compact(self):
        boundary = {"parentUuid": None, "logicalParentUuid": self.parent, "isSidechain": False, "type": "system",
                    "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
                    "timestamp": self._tick(), "uuid": self._uuid(), "level": "info",
                    "compactMetadata": {"trigger": "auto", "preTokens": 160000}, "sessionId": self.session_id,
                    "cwd": self.cwd, "version": self.version}
        self._emit(boundary)
        summary = self._base("user")
        summary["isCompactSummary"] = True
        summary["message"] = {"role": "user", "content": "This session is being continued from a previous conversation."}
        self._emit(summary)

    def malformed(self):
        self.records.append('{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "tr')

    # -- files ------------------------------------------------------------
    def lines(self, records):
        return "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records)

    def write(self, projects):
        folder = Path(projects) / ("-" + self.cwd.strip("/").replace("/", "-"))
        folder.mkdir(parents=True, exist_ok=True)
        main = folder / f"{self.session_id}.jsonl"
        main.write_text(self.lines(self.records))
        written = [main]
        for agent, records in self.subagents.items():
            sub = folder / self.session_id / "subagents" / f"agent-{agent}.jsonl"
            sub.parent.mkdir(parents=True, exist_ok=True)
            sub.write_text(self.lines(records))
            written.append(sub)
        return written


# -- a large corpus for the benchmark ------------------------------------

def _file_text(rng, lines):
    words = ["const", "return", "import", "value", "items", "config", "result", "await", "export", "function"]
    return "\n".join(f"{i + 1}\t" + " ".join(rng.choice(words) for _ in range(rng.randint(3, 12)))
                     for i in range(lines))


def generate(projects, target_bytes, seed=7, errors=None):
    """Sessions until `target_bytes` are written: reads of files of a few
    hundred lines, commands and their output, real errors (from `errors`)
    followed by an edit and a retry, parallel calls, subagents, compaction.
    Returns (files, bytes)."""
    rng = random.Random(seed)
    errors = errors or ["Exit code 1\nError: Cannot find module 'express'"]
    projects = Path(projects)
    written, files, n = 0, 0, 0
    while written < target_bytes:
        n += 1
        session = Session(cwd=f"/home/dev/project{n % 40}", rng=rng,
                          start=datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
                          + datetime.timedelta(hours=n))
        session.startup()
        session.prompt("Fix the failing build and add the tests")
        for step in range(rng.randint(30, 90)):
            session.noise()
            kind = rng.random()
            path = f"{session.cwd}/src/module{rng.randint(1, 60)}.ts"
            if kind < 0.35:
                session.call("Read", {"file_path": path}, _file_text(rng, rng.randint(40, 400)))
            elif kind < 0.55:
                session.bash(rng.choice(["npm test", "git status", "ls src", "npm run build", "cargo test"]),
                             _file_text(rng, rng.randint(5, 80)))
            elif kind < 0.70:
                error = rng.choice(errors)
                session.bash("npm run build", error=error)
                session.call("Edit", {"file_path": path, "old_string": "import x from './x'",
                                      "new_string": "import x from './x.js'"}, "The file has been updated.")
                session.bash("npm run build", "build ok")
            elif kind < 0.80:
                session.calls([("Grep", {"pattern": "TODO"}, "src/a.ts:1: TODO", False),
                               ("Glob", {"pattern": "**/*.ts"}, "src/a.ts\nsrc/b.ts", False),
                               ("Read", {"file_path": path}, _file_text(rng, 120), False)])
            elif kind < 0.88:
                agent = f"a{rng.getrandbits(64):016x}"
                session.call("Agent", {"description": "check", "prompt": "look", "subagent_type": "general-purpose"},
                             "done", tool_use_result={"status": "completed", "agentId": agent})
                session.prompt("look", agent=agent)
                session.call("Read", {"file_path": path}, _file_text(rng, 150), agent=agent)
                session.bash("npm test", error=rng.choice(errors), agent=agent)
            elif kind < 0.98:
                session.call("Write", {"file_path": path, "content": _file_text(rng, rng.randint(20, 120))},
                             "File created successfully")
            else:
                session.compact()
        session.text("Done.")
        for file in session.write(projects):
            written += file.stat().st_size
            files += 1
    return files, written


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", help="folder to write the transcripts under")
    parser.add_argument("--mb", type=float, default=200)
    args = parser.parse_args()
    corpus = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real_errors" / "corpus.json"
    errors = [e["error"] for e in json.loads(corpus.read_text()) if e.get("role") == "stored"]
    files, size = generate(args.projects, int(args.mb * 1e6), errors=errors)
    print(f"{files} files, {size / 1e6:.1f} MB")
