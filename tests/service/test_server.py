"""The HTTP server every service runs under (shared/app.py): it looks at its own state once a
second, not ten times, yet a stop signal still ends it at once; a failed start is still the
process's failure, as under uvicorn.run, and so is an app that dies once started."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import httpx

from planwire.procs import free_ports

# A bare ASGI app: its lifespan starts (or refuses to, or dies as FastStream's does when the
# broker fails to start after the start was reported complete), every request gets 204.
CHILD = """
import asyncio
import sys
import shared.app as served
from shared.settings import InfraSettings

mode = sys.argv[2]
if mode == "ok":
    served.TICK_S = 120.0  # a stop that waited for the next look would take two minutes
fail = mode == "fail"

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                kind = "failed" if fail else "complete"
                await send({"type": f"lifespan.startup.{kind}", "message": "refused"})
                if fail:
                    return
                if mode == "dies":
                    await asyncio.sleep(0.5)
                    await send({"type": "lifespan.shutdown.failed", "message": "no broker"})
                    raise RuntimeError("the broker did not start")
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    else:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

served.serve(app, InfraSettings(http_port=int(sys.argv[1])), "server-test")
"""


def start(port: int, mode: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(port), mode],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def answering(url: str, child: subprocess.Popen[bytes]) -> None:
    for _ in range(200):
        assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
        try:
            if httpx.get(url, timeout=1.0).status_code == 204:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{url} never answered")


def test_a_stop_signal_ends_the_server_at_once_not_at_its_next_look():
    (port,) = free_ports(1)
    child = start(port, "ok")
    try:
        answering(f"http://127.0.0.1:{port}/", child)
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)  # raises unless it ends far sooner than the two-minute look
    finally:
        child.kill()
        child.wait()
    # uvicorn shuts down, then hands the signal back: the process ends by SIGTERM, as before.
    assert child.returncode == -signal.SIGTERM


def test_a_service_whose_start_fails_exits_with_uvicorns_startup_failure_status():
    (port,) = free_ports(1)
    child = start(port, "fail")
    try:
        assert child.wait(timeout=60) == 3
    finally:
        child.kill()
        child.wait()


def test_a_service_whose_app_dies_after_its_start_exits_instead_of_answering_probes():
    """FastStream reports the start complete, then starts the broker: a broker or producer
    that fails there used to leave a process answering /health 204 and consuming nothing."""
    (port,) = free_ports(1)
    child = start(port, "dies")
    try:
        assert child.wait(timeout=60) == 3
    finally:
        child.kill()
        child.wait()
    assert b"the app stopped while serving" in (child.stderr.read() if child.stderr else b"")
