"""The embedded stack on real processes: the broker (Tansu or noida-db), Valkey and fake
services come up and go away.

The fake service (tests/support/fake_service.py) stands in for the real ones so these tests
check the stack's process handling alone; `--grandchild` makes it spawn a process of its
own, so the tests also see that stopping reaches grandchildren.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from aiokafka.admin import AIOKafkaAdminClient
from redis.asyncio import Redis

from planwire.cli import _announce as announce
from planwire.procs import StackError
from planwire.specs import RUNNERS, ServiceSpec
from planwire.stack import BROKER_CONSUMER_ENV, EmbeddedStack
from schemas.topics import all_topics

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
FAKE = "tests.support.fake_service"


def running(pid: int) -> bool:
    """True while /proc shows the pid as a live (not zombie) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


async def broker_topics(bootstrap: str) -> set[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return set(await admin.list_topics())
    finally:
        await admin.close()


async def valkey_pings(url: str) -> bool:
    client = Redis.from_url(url)
    try:
        return bool(await client.ping())
    finally:
        await client.aclose()


async def test_stack_serves_every_part_and_stop_leaves_no_process(tmp_path):
    stack = EmbeddedStack(log_dir=tmp_path)
    await stack.astart(
        [ServiceSpec("gateway", FAKE, ("--grandchild",)), ServiceSpec("trimmer", FAKE)]
    )
    try:
        pids = stack.pids
        async with httpx.AsyncClient() as http:
            health = [
                (await http.get(f"{url}/health")).status_code for url in stack.service_urls.values()
            ]
            grandchildren = (await http.get(f"{stack.gateway_url}/children")).json()
        assert {t.name for t in all_topics(RUNNERS)} <= await broker_topics(stack.bootstrap)
        assert await valkey_pings(stack.redis_url)
    finally:
        await stack.astop()
    assert health == [204, 204] and len(pids) == 4 and len(grandchildren) == 1
    assert stack.env["PLANWIRE_KAFKA_BOOTSTRAP"] == stack.bootstrap
    # The fetch waits and group timeouts of the broker it runs (Tansu by default).
    assert BROKER_CONSUMER_ENV[stack.broker].items() <= stack.env.items()
    assert [p for p in [*pids, *grandchildren] if running(p)] == []
    stack.stop()  # a second stop is harmless


async def test_a_service_that_dies_at_start_fails_the_start_with_its_log_and_cleans_up(tmp_path):
    stack = EmbeddedStack(log_dir=tmp_path)
    with pytest.raises(StackError, match="No module named") as failure:
        await stack.astart(
            [ServiceSpec("gateway", FAKE), ServiceSpec("broken", "tests.support.no_such_module")]
        )
    assert "broken exited" in str(failure.value)
    assert stack.pids == [] and (stack.log_dir / "broken.log").exists()


async def test_the_noida_broker_is_selectable_and_serves_the_stack_with_a_warning(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PLANWIRE_EMBEDDED_BROKER", "noida")
    monkeypatch.delenv("PLANWIRE_FETCH_MAX_WAIT_MS", raising=False)
    stack = EmbeddedStack(log_dir=tmp_path)
    await stack.astart([ServiceSpec("gateway", FAKE)])
    try:
        pids = stack.pids
        announce(stack)  # what `planwire up` prints once the stack serves
        topics = await broker_topics(stack.bootstrap)
        async with httpx.AsyncClient() as http:
            health = (await http.get(f"{stack.gateway_url}/health")).status_code
    finally:
        await stack.astop()
    assert {t.name for t in all_topics(RUNNERS)} <= topics and health == 204
    assert stack.broker == "noida" and (tmp_path / "noida.log").exists()
    said = capsys.readouterr()
    assert "planwire is up" in said.out
    assert "warning: noida-db" in said.err and "never given its partitions back" in said.err
    assert stack.env["PLANWIRE_FETCH_MAX_WAIT_MS"] == "500"
    assert [p for p in pids if running(p)] == []


def test_an_unknown_embedded_broker_is_refused_with_the_choices(tmp_path, monkeypatch):
    monkeypatch.setenv("PLANWIRE_EMBEDDED_BROKER", "kafka9")
    with pytest.raises(StackError, match=r"tansu, noida"):
        EmbeddedStack(log_dir=tmp_path)


def read_lines(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))


def wait_for_line(lines: queue.Queue, prefix: str, seen: list[str], timeout_s: float = 60) -> str:
    """The first output line starting with `prefix`; every line read is kept in `seen`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            seen.append(lines.get(timeout=max(0.01, deadline - time.monotonic())))
        except queue.Empty:
            break
        if seen[-1].startswith(prefix):
            return seen[-1][len(prefix) :].strip()
    raise AssertionError(f"no {prefix!r} line; output so far:\n" + "\n".join(seen))


def test_planwire_up_stops_everything_on_sigterm_and_exits_0():
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PLANWIRE_STACK_SERVICES": f"gateway={FAKE},trimmer={FAKE}",
    }
    up = subprocess.Popen(
        [sys.executable, "-m", "planwire", "up"],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=read_lines, args=(up.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        gateway = wait_for_line(lines, "gateway:", seen)
        pids = [int(p) for p in wait_for_line(lines, "pids:", seen).split()]
        assert httpx.get(f"{gateway}/health").status_code == 204
    finally:
        up.send_signal(signal.SIGTERM)
        code = up.wait(15)
    assert code == 0, "\n".join(seen)
    assert len(pids) == 4 and [p for p in pids if running(p)] == []


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is pid (the stack's services run in their own sessions,
    but their parent is the command that started them)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_terminated_eval_leaves_no_server_behind(tmp_path):
    # A CI job that times out sends SIGTERM: the broker, Valkey and services must go too.
    case = tmp_path / "c.json"
    case.write_text(
        json.dumps(
            {
                "id": "c",
                "turns": ["Post new Shopify orders to Slack."],
                "confirm": "yes",
                "expect": {"integrations": ["shopify", "slack"], "tools": []},
            }
        )
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PLANWIRE_STACK_SERVICES": f"gateway={FAKE},trimmer={FAKE}",
    }
    errors = tmp_path / "stderr.txt"
    run = subprocess.Popen(
        [sys.executable, "-m", "planwire", "eval", str(case)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=errors.open("w"),
    )
    deadline, started, steady = time.monotonic() + 60, [], 0
    while time.monotonic() < deadline and steady < 8 and run.poll() is None:
        time.sleep(0.25)
        now = children_of(run.pid)
        steady = steady + 1 if now == started and now else 0
        started = now
    run.send_signal(signal.SIGTERM)
    try:
        # The stack's own stop takes up to 20 s; a hung one is cut at 25 (`stop_within`).
        run.wait(40)
    except subprocess.TimeoutExpired:
        run.kill()
        raise AssertionError(f"eval still ran 40 s after SIGTERM:\n{errors.read_text()}") from None
    assert run.returncode == 130, errors.read_text()
    assert len(started) >= 4  # the broker, Valkey and the services
    assert [p for p in started if running(p)] == []
