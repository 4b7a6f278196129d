"""A stand-in service process for stack tests: `/health` and `/ready` 204, `/metrics`,
`/children`.

Run as `python -m tests.support.fake_service [--grandchild]`; serves on PLANWIRE_HTTP_HOST
and PLANWIRE_HTTP_PORT until SIGTERM. With `--grandchild` it spawns a long `sleep`, which
inherits the service's process group, and lists its pid at `/children`: tests check that
stopping the stack reaches grandchildren too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHILDREN: list[int] = []


class Handler(BaseHTTPRequestHandler):
    """Answers the few paths the stack and the tests use."""

    def do_GET(self) -> None:
        if self.path in ("/health", "/ready"):
            self._send(204, b"", "text/plain")
        elif self.path == "/metrics":
            self._send(200, b"fake_up 1\n", "text/plain; version=0.0.4")
        elif self.path == "/children":
            self._send(200, json.dumps(CHILDREN).encode(), "application/json")
        else:
            self._send(404, b"not found", "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet: the stack polls /health many times a second."""


def main(argv: list[str]) -> int:
    """Serve until SIGTERM or SIGINT."""
    if "--grandchild" in argv:
        CHILDREN.append(subprocess.Popen(["sleep", "600"]).pid)
    server = ThreadingHTTPServer(
        (os.environ.get("PLANWIRE_HTTP_HOST", "127.0.0.1"), int(os.environ["PLANWIRE_HTTP_PORT"])),
        Handler,
    )
    for signum in (signal.SIGTERM, signal.SIGINT):
        # shutdown() blocks until serve_forever returns, so call it from another thread.
        signal.signal(signum, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"fake service on port {server.server_port}", flush=True)
    server.serve_forever(poll_interval=0.05)  # a quick exit after SIGTERM keeps tests fast
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
