"""A scripted stand-in of the Anthropic Messages API, for running the real
Claude Code client (`claude -p`, ANTHROPIC_BASE_URL=http://127.0.0.1:PORT).

The "model" follows a script: on the first request of a conversation whose
first user message contains a start marker (markers must not contain each
other) it answers with that marker's
blocks; on a request whose newest tool results include tool_use id X it
answers with the blocks scripted after X. Anything else (a title request,
the end of a script) gets a short text answer, which ends the turn. Answers
are streamed as server-sent events the way the API does (message_start,
content_block_start/delta/stop, message_delta, message_stop). Every request
is kept, so a test can see what the client sent and where hook context
landed.
"""
import http.server
import json
import threading


def tool_use(id, name, **tool_input):
    return {"type": "tool_use", "id": id, "name": name, "input": tool_input}


def text(words):
    return {"type": "text", "text": words}


class StandIn:
    def __init__(self, script):
        self.script = script
        self.requests = []
        self._lock = threading.Lock()
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if "count_tokens" in self.path:
                    return self._json({"input_tokens": 10})
                with standin._lock:
                    standin.requests.append(body)
                self._stream(body, standin.answer(body))

            def _json(self, obj):
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body, blocks):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()

                def event(kind, data):
                    self.wfile.write(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode())

                event("message_start", {"message": {
                    "id": f"msg_{len(standin.requests)}", "type": "message", "role": "assistant",
                    "model": body.get("model", "stand-in"), "content": [], "stop_reason": None,
                    "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}})
                for i, block in enumerate(blocks):
                    if block["type"] == "text":
                        event("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}})
                        event("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": block["text"]}})
                    else:
                        event("content_block_start", {"index": i, "content_block": {**block, "input": {}}})
                        event("content_block_delta", {"index": i, "delta": {
                            "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
                    event("content_block_stop", {"index": i})
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                event("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                        "usage": {"output_tokens": 5}})
                event("message_stop", {})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, body):
        messages = body.get("messages", [])
        if body.get("tools"):
            results = newest_tool_results(messages)
            if results:
                for result in results:
                    if f"after:{result['tool_use_id']}" in self.script:
                        return self.script[f"after:{result['tool_use_id']}"]
            elif not any(m["role"] == "assistant" for m in messages) and messages:
                first = json.dumps(messages[0]["content"], ensure_ascii=False)
                for key, blocks in self.script.items():
                    if key.startswith("start:") and key[len("start:"):] in first:
                        return blocks
        return [text("ok")]

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def blocks_of(message):
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])


def newest_tool_results(messages):
    """The tool results of the newest user message that has any."""
    for message in reversed(messages):
        if message["role"] == "user":
            results = [b for b in blocks_of(message) if b.get("type") == "tool_result"]
            if results:
                return results
        if message["role"] == "assistant":
            return []
    return []


def context_after(requests, tool_use_id):
    """The text Claude Code placed after the result of `tool_use_id`, up to
    the next assistant turn, in the first request that carries that result
    (hook contexts arrive there), and the request's index."""
    for index, body in enumerate(requests):
        messages = body.get("messages", [])
        for at, message in enumerate(messages):
            if any(b.get("tool_use_id") == tool_use_id for b in blocks_of(message)):
                texts = []
                # text blocks beside the result, then the messages after it
                for block in blocks_of(message):
                    if block.get("type") == "text":
                        texts.append(block["text"])
                for later in messages[at + 1:]:
                    if later["role"] == "assistant":
                        break
                    texts += [b["text"] for b in blocks_of(later) if b.get("type") == "text"]
                return index, "\n".join(texts)
    raise AssertionError(f"no request carries the result of {tool_use_id}")
