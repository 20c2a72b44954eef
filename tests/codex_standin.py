"""A scripted stand-in of the OpenAI Responses API, for running the real
Codex CLI (`codex exec`) against 127.0.0.1 (docs/CODEX.md says how Codex is
pointed at it: a `[model_providers.X]` with `wire_api = "responses"` and
`base_url = "<url>/v1"` in a throwaway CODEX_HOME's config.toml).

Codex sends the whole conversation in every `POST /v1/responses` request
(`store: false`, `stream: true`) and reads the answer as server-sent events.
The "model" follows a script, as the Claude Code stand-in does:

- `"start:MARKER"`: the answer to the first request of a turn whose user
  text contains MARKER (markers must not contain each other);
- `"after:CALL_ID"`: the answer to a request whose newest tool outputs
  (`function_call_output` / `custom_tool_call_output`) include CALL_ID.

Anything else gets a short text answer, which ends the turn. An answer is
a list of output items, made with `shell()`, `patch()`, `call()` and
`text()`, or a function of the request body that returns one. Every request is kept (`.requests`, each with its path and
headers under `"_path"` / `"_headers"`), so a caller can see what Codex sent
and where hook context landed.
"""
import gzip
import http.server
import json
import threading

TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


def call(call_id, name, namespace=None, **arguments):
    """A function call (`exec_command`, `write_stdin`, an MCP tool in its
    `namespace`, ...)."""
    item = {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments)}
    if namespace:
        item["namespace"] = namespace
    return item


def shell(call_id, cmd, **extra):
    """Run `cmd` with Codex's shell tool (`exec_command`, unified exec)."""
    return call(call_id, "exec_command", cmd=cmd, **extra)


def patch(call_id, body):
    """Edit files with apply_patch, a freeform (custom) tool: `body` is the
    patch text itself, `*** Begin Patch` ... `*** End Patch`."""
    return {"type": "custom_tool_call", "id": f"ctc_{call_id}", "call_id": call_id,
            "name": "apply_patch", "input": body}


def search(call_id, query):
    """Ask Codex's client-side tool_search for deferred tools (MCP tools are
    offered only this way in 0.171.0); the answer is a tool_search_output
    whose tools can then be called with `call(..., namespace=...)`."""
    return {"type": "tool_search_call", "id": f"ts_{call_id}", "call_id": call_id, "execution": "client",
            "status": "completed", "arguments": {"query": query, "limit": 8}}


def text(words):
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": words}]}


def message_texts(item):
    """The texts of one input item (a message's parts, a tool output)."""
    if item.get("type") == "message":
        content = item.get("content")
        if isinstance(content, str):
            return [content]
        return [part.get("text", "") for part in content or []]
    if item.get("type") in TOOL_OUTPUTS:
        output = item.get("output")
        if isinstance(output, str):
            return [output]
        return [part.get("text", "") for part in output or [] if isinstance(part, dict)]
    return []


def is_model_item(item):
    return item.get("type") in ("function_call", "custom_tool_call", "tool_search_call", "reasoning") or (
        item.get("type") == "message" and item.get("role") == "assistant")


def newest_tool_outputs(items):
    """The tool outputs after the newest model item of the input."""
    outputs = []
    for item in reversed(items):
        if item.get("type") in TOOL_OUTPUTS:
            outputs.append(item)
        elif is_model_item(item):
            break
    return list(reversed(outputs))


def newest_user_text(items):
    """The user messages after the newest model item (a new turn's prompt
    and the context Codex sends with it)."""
    said = []
    for item in reversed(items):
        if is_model_item(item):
            break
        if item.get("type") == "message" and item.get("role") == "user":
            said[:0] = message_texts(item)
    return "\n".join(said)


class StandIn:
    def __init__(self, script, log=None):
        self.script = script
        self.requests = []
        self.log = log  # a path: every request appended as one JSON line
        self._lock = threading.Lock()
        self._ids = 0
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                # Codex may list models; an empty list keeps its defaults.
                if self.path.rstrip("/").endswith("/models"):
                    return self._json({"object": "list", "data": [], "models": []})
                self._json({"error": {"message": "not here"}}, status=404)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                encoding = self.headers.get("content-encoding", "")
                if encoding == "gzip":
                    raw = gzip.decompress(raw)
                elif encoding:
                    return self._json({"error": {"message": f"cannot read {encoding}"}}, status=415)
                body = json.loads(raw or b"{}")
                body["_path"] = self.path
                body["_headers"] = dict(self.headers)
                with standin._lock:
                    standin.requests.append(body)
                    if standin.log:
                        with open(standin.log, "a") as log:
                            log.write(json.dumps(body) + "\n")
                if not self.path.rstrip("/").endswith("/responses"):
                    return self._json({"error": {"message": "not here"}}, status=404)
                self._stream(body, standin.answer(body))

            def _json(self, obj, status=200):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body, items):
                response_id = f"resp_{standin.next_id()}"
                chunks = []

                def event(kind, data):
                    chunks.append(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n")

                event("response.created", {"response": {"id": response_id, "status": "in_progress"}})
                for index, item in enumerate(items):
                    item = dict(item)
                    if item["type"] == "message":
                        item.setdefault("id", f"msg_{standin.next_id()}")
                        item.setdefault("status", "completed")
                    event("response.output_item.added", {"output_index": index, "item": item})
                    if item["type"] == "message":
                        for part in item["content"]:
                            event("response.output_text.delta", {"output_index": index, "content_index": 0,
                                                                 "item_id": item["id"], "delta": part["text"]})
                    event("response.output_item.done", {"output_index": index, "item": item})
                event("response.completed", {"response": {
                    "id": response_id, "status": "completed",
                    "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                              "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                              "total_tokens": 15}}})
                data = "".join(chunks).encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def next_id(self):
        with self._lock:
            self._ids += 1
            return self._ids

    def answer(self, body):
        items = body.get("input", [])
        outputs = newest_tool_outputs(items)
        for output in outputs:
            key = f"after:{output.get('call_id')}"
            if key in self.script:
                return self._items(self.script[key], body)
        if not outputs:
            said = newest_user_text(items)
            for key, answer in self.script.items():
                if key.startswith("start:") and key[len("start:"):] in said:
                    return self._items(answer, body)
        return [text("ok")]

    @staticmethod
    def _items(answer, body):
        return answer(body) if callable(answer) else answer

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def config_toml(url, model="gpt-5.5"):
    """A CODEX_HOME config.toml that sends Codex to the stand-in at `url`;
    the key is read from STANDIN_API_KEY (any value)."""
    return (f'model = "{model}"\n'
            'model_provider = "standin"\n'
            '\n[model_providers.standin]\n'
            'name = "stand-in"\n'
            f'base_url = "{url}/v1"\n'
            'env_key = "STANDIN_API_KEY"\n'
            'wire_api = "responses"\n'
            'request_max_retries = 0\n'
            'stream_max_retries = 0\n')


def items_around(requests, call_id):
    """What Codex placed around the output of `call_id`: the items after the
    call up to the next model turn, its output left out, in the first
    request that carries that output, and the request's index. Codex
    0.171.0 puts PreToolUse and PostToolUse additionalContext there, as
    developer messages between the call and its output."""
    for index, body in enumerate(requests):
        items = body.get("input", [])
        if not any(i.get("type") in TOOL_OUTPUTS and i.get("call_id") == call_id for i in items):
            continue
        at = next(n for n, i in enumerate(items) if is_model_item(i) and i.get("call_id") == call_id)
        around = []
        for item in items[at + 1:]:
            if is_model_item(item):
                break
            if not (item.get("type") in TOOL_OUTPUTS and item.get("call_id") == call_id):
                around.append(item)
        return index, around
    raise AssertionError(f"no request carries the output of {call_id}")


def developer_texts(items):
    """The texts of the developer messages among `items`."""
    return [t for i in items if i.get("type") == "message" and i.get("role") == "developer"
            for t in message_texts(i)]


def output_of(requests, call_id):
    """The output item of `call_id` in the first request that carries it."""
    for body in requests:
        for item in body.get("input", []):
            if item.get("type") in TOOL_OUTPUTS and item.get("call_id") == call_id:
                return item
    raise AssertionError(f"no request carries the output of {call_id}")
