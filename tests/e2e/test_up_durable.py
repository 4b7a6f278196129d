"""`planwire up` as a user runs it (issue 31): what it saved is there after a restart, and a
service killed under it is started again and the conversation still completes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from planwire.client import SessionClient
from tests.e2e.gathering import gather
from tests.e2e.test_stack import ROOT, read_lines, running, wait_for_line

pytestmark = pytest.mark.e2e

TURNS = [
    "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out of each PDF.",
    "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
]
CONFIRM = "Yes, that's everything. Please build it."
BACK_WITHIN_S = 5.0  # the promise for a killed service


@dataclass
class Up:
    """A running `planwire up`: its process, gateway, pids and every line it printed."""

    process: subprocess.Popen[str]
    gateway: str
    pids: list[int]
    lines: queue.Queue[str]
    seen: list[str]


@contextlib.contextmanager
def planwire_up(data_dir: Path) -> Iterator[Up]:
    """Run `planwire up --model heuristic` on `data_dir`; SIGTERM it after, and check that it
    exits 0 leaving none of the processes it started (restarted ones included)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PLANWIRE_DATA_DIR": str(data_dir)}
    argv = [sys.executable, "-m", "planwire", "up", "--model", "heuristic"]
    process = subprocess.Popen(
        argv, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True).start()
    seen: list[str] = []
    pids: list[int] = []
    try:
        gateway = wait_for_line(lines, "gateway:", seen, timeout_s=120)
        assert wait_for_line(lines, "data:", seen) == str(data_dir)
        pids += [int(p) for p in wait_for_line(lines, "pids:", seen).split()]
        started = children_of(process.pid)
        yield Up(process, gateway, pids, lines, seen)
        pids += started + children_of(process.pid)  # the restarted ones too
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(60)
    assert code == 0, "\n".join(seen)
    left = [p for p in pids if running(p)]
    assert left == [], "\n".join(seen)


def children_of(parent: int) -> list[int]:
    """The live processes whose parent is `parent` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            if entry.name.isdigit() and int(stat_fields(entry)[1]) == parent:
                found.append(int(entry.name))
    return found


def stat_fields(entry: Path) -> list[str]:
    """/proc/<pid>/stat after the command name: state, ppid, pgrp, ..."""
    return (entry / "stat").read_text().rsplit(")", 1)[1].split()


def service_pid(up: Up, service: str) -> int:
    """The pid of one service `planwire up` started (its child running services.<name>.main)."""
    for pid in children_of(up.process.pid):
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if f"services.{service}.main".encode() in argv:
            return pid
    raise AssertionError(f"no {service} process under planwire up")


async def build(gateway: str) -> tuple[str, str]:
    """Play a conversation to a saved workflow; its session id and workflow id."""
    async with SessionClient(gateway, timeout_s=90) as session:
        state, _summary = await gather(session, TURNS)
        assert state["phase"] == "confirming", state
        await session.say(CONFIRM)
        done = await session.wait_for(
            lambda e: e.type in {"workflow_completed", "workflow_failed"}, timeout_s=120
        )
    assert done.type == "workflow_completed", done.data
    return session.session_id, done.data["workflow_id"]


async def test_a_saved_workflow_and_its_session_are_there_after_planwire_up_restarts(tmp_path):
    data_dir = tmp_path / "data"
    with planwire_up(data_dir) as first:
        session_id, workflow_id = await build(first.gateway)
        async with httpx.AsyncClient(base_url=first.gateway) as http:
            saved = (await http.get(f"/v1/workflows/{workflow_id}")).json()
    with planwire_up(data_dir) as second:
        async with httpx.AsyncClient(base_url=second.gateway) as http:
            document = await http.get(f"/v1/workflows/{workflow_id}")
            listed = (await http.get("/v1/sessions")).json()["sessions"]
            session = (await http.get(f"/v1/sessions/{session_id}")).json()
    assert second.gateway != first.gateway  # a new stack on new ports, not the old one
    assert document.status_code == 200 and document.json() == saved
    assert session_id in {s["session_id"] for s in listed}, listed
    assert session["phase"] == "completed" and session["workflow_id"] == workflow_id


async def test_a_killed_service_is_back_within_5_s_and_the_conversation_completes(tmp_path):
    with planwire_up(tmp_path / "data") as up:
        await the_gateway_is_not_ready_while_the_annotator_does_not_answer(up)
        for service in ("annotator", "specialist"):
            await kill_and_see_it_back(up, service)
        _session_id, workflow_id = await build(up.gateway)
    assert workflow_id.startswith("wf-")


async def the_gateway_is_not_ready_while_the_annotator_does_not_answer(up: Up) -> None:
    """A stopped (not exited, so not restarted) annotator: the gateway's /ready says 503."""
    annotator = service_pid(up, "annotator")
    async with httpx.AsyncClient(base_url=up.gateway, timeout=10) as http:
        assert (await http.get("/ready")).status_code == 204
        os.kill(annotator, signal.SIGSTOP)
        try:
            assert (await http.get("/ready")).status_code == 503
        finally:
            os.kill(annotator, signal.SIGCONT)
        assert (await http.get("/ready")).status_code == 204


async def kill_and_see_it_back(up: Up, service: str) -> None:
    """SIGKILL a service under `up`; it says so, and a new process serves within 5 s."""
    url = wait_for_line_of(up, f"{service}:")
    old = service_pid(up, service)
    os.kill(old, signal.SIGKILL)
    killed = time.monotonic()
    wait_for_line(up.lines, f"restart: {service} started again", up.seen)
    async with httpx.AsyncClient(base_url=url, timeout=1.0) as http:
        while time.monotonic() - killed < BACK_WITHIN_S:
            with contextlib.suppress(httpx.TransportError):
                if (await http.get("/health")).status_code == 204:
                    break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"{service} not back {BACK_WITHIN_S} s after its kill")
    assert service_pid(up, service) != old
    assert any(line.startswith(f"restart: {service} exited (-9)") for line in up.seen), up.seen


def wait_for_line_of(up: Up, prefix: str) -> str:
    """The rest of a line `planwire up` printed already (or prints next) starting with `prefix`."""
    for line in up.seen:
        if line.startswith(prefix):
            return line[len(prefix) :].strip()
    return wait_for_line(up.lines, prefix, up.seen)
