"""Probes as Kubernetes means them, on a real service process: liveness is the process
answering; readiness is the broker and Redis answering; a service that cannot start its broker
client does not stay alive to answer them."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import httpx
import pytest

from planwire.procs import Child, free_ports
from planwire.stack import ROOT

pytestmark = pytest.mark.e2e


async def probe(url: str, path: str) -> int:
    async with httpx.AsyncClient(timeout=10) as http:
        return (await http.get(url + path)).status_code


async def first_answer(child: Child, url: str, timeout_s: float = 90) -> None:
    async with asyncio.timeout(timeout_s):
        while True:
            child.check()
            try:
                await probe(url, "/health")
                return
            except httpx.HTTPError:
                await asyncio.sleep(0.3)


async def test_a_service_without_redis_is_alive_but_not_ready_and_a_healthy_one_is_both(
    stack, tmp_path
):
    http_port, dead_redis_port = free_ports(2)
    env = {
        **os.environ,
        **stack.env,
        "PYTHONPATH": str(ROOT),
        "PLANWIRE_HTTP_PORT": str(http_port),
        "PLANWIRE_REDIS_URL": f"redis://127.0.0.1:{dead_redis_port}/0",  # nothing listens
    }
    child = Child(
        "trimmer-no-redis",
        [sys.executable, "-m", "services.trimmer.main"],
        tmp_path / "trimmer.log",
        env,
        cwd=str(ROOT),
    ).start()
    url = f"http://127.0.0.1:{http_port}"
    try:
        await first_answer(child, url)
        assert await probe(url, "/health") == 204  # alive: a restart would not bring Redis back
        assert await probe(url, "/ready") == 503  # not ready: take it out of rotation
    finally:
        child.signal_group(15)
        await asyncio.to_thread(child.popen.wait, 20)
    healthy = stack.service_urls["trimmer"]
    assert (await probe(healthy, "/health"), await probe(healthy, "/ready")) == (204, 204)


async def test_a_service_whose_producer_fails_to_start_exits_instead_of_staying_alive(
    stack, tmp_path
):
    """The audit's zombie: the embedded Tansu refuses idempotent producers (`InitProducerId`),
    FastStream stopped the app after reporting it started, and the process went on answering
    /health 204 with nothing consumed, so no liveness probe ever restarted it."""
    (http_port,) = free_ports(1)
    env = {
        **os.environ,
        **stack.env,
        "PYTHONPATH": str(ROOT),
        "PLANWIRE_HTTP_PORT": str(http_port),
        "PLANWIRE_KAFKA_IDEMPOTENCE": "true",  # what Tansu refuses
    }
    child = Child(
        "trimmer-no-producer",
        [sys.executable, "-m", "services.trimmer.main"],
        tmp_path / "trimmer.log",
        env,
        cwd=str(ROOT),
    ).start()
    assert child.popen is not None
    try:
        status = await asyncio.to_thread(child.popen.wait, 90)
    except subprocess.TimeoutExpired:
        status = None
    finally:
        child.signal_group(9)
    log = child.log.read_text(errors="replace")
    assert status == 3, f"still running or wrong status {status}:\n{child.tail()}"
    assert "InitProducerIdRequest" in log and "the app stopped while serving" in log
