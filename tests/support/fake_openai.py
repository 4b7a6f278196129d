"""A loopback fake of OpenAI chat completions with a scriptable behaviour per call.

Behaviours, consumed one per request in order:
  "ok:<json>"               answer with <json> as the message content
  "schema_violation:<json>" the same, named for tests whose <json> breaks the schema
  "invalid_json"            answer with content that is not JSON
  "http<code>"              fail with that HTTP status (e.g. "http500", "http429")
  "timeout"                 sleep `hang_s` (longer than the client timeout), then answer
When the script is empty the `responder(request_json) -> dict` answers.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from planwire.scripted import completion

NOT_JSON = 'Sure! Here is the answer: {"answer": '


def sample_for(schema: dict) -> object:
    """A minimal instance of a JSON schema (the default responder's answer)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties", {})
        return {
            name: sample_for(props[name]) for name in schema.get("required", []) if name in props
        }
    return {"array": [], "string": "x", "integer": 0, "number": 0, "boolean": False, "null": None}[
        kind
    ]


def schema_responder(request: dict) -> dict:
    """Answer with the smallest object that satisfies the requested schema."""
    fmt = request.get("response_format") or {}
    return sample_for(fmt.get("json_schema", {}).get("schema", {"type": "object"}))


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)  # roughly what BPE tokenizers give for English


class FakeOpenAI:
    """The fake server: `.base_url`, `.script([...])`, `.requests` (every request body)."""

    def __init__(
        self, responder: Callable[[dict], dict] = schema_responder, hang_s: float = 1.0
    ) -> None:
        self.responder = responder
        self.hang_s = hang_s
        self.requests: list[dict] = []
        self._queue: deque[str] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval so that stop() returns in milliseconds, not the default 0.5 s.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-openai",
            daemon=True,
        )
        host, port = self._httpd.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging requests are released."""
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, behaviours: list[str]) -> None:
        """Queue behaviours for the next calls, one each."""
        with self._lock:
            self._queue.extend(behaviours)

    def _next(self, request: dict) -> str:
        with self._lock:
            self.requests.append(request)
            return self._queue.popleft() if self._queue else ""

    def respond(self, request: dict) -> tuple[int, dict]:
        """Decide the (status, body) for one request."""
        behaviour = self._next(request)
        if behaviour.startswith("http"):
            status = int(behaviour[4:])
            return status, {
                "error": {"message": f"scripted {status}", "type": "server_error", "code": status}
            }
        if behaviour == "timeout":
            self._closing.wait(self.hang_s)
            return 200, self._completion(request, json.dumps(self.responder(request)))
        if behaviour == "invalid_json":
            return 200, self._completion(request, NOT_JSON)
        if behaviour.startswith(("ok:", "schema_violation:")):
            return 200, self._completion(request, behaviour.split(":", 1)[1])
        if behaviour:
            raise ValueError(f"unknown scripted behaviour {behaviour!r}")
        return 200, self._completion(request, json.dumps(self.responder(request)))

    @staticmethod
    def _completion(request: dict, content: str) -> dict:
        prompt = sum(_tokens(str(m.get("content", ""))) + 4 for m in request.get("messages", []))
        return completion(request, content, prompt, _tokens(content))


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like a real server

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, payload = fake.respond(json.loads(body or b"{}"))
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a scripted timeout): nothing to answer

        def log_message(self, *args) -> None:
            pass  # keep test output quiet

    return Handler
