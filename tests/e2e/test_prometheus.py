"""A real Prometheus server scrapes the embedded stack while a conversation runs."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from planwire.client import SessionClient
from tests.e2e.gathering import gather

pytestmark = pytest.mark.e2e

TURNS = [
    "New Zendesk tickets should be checked for sentiment.",
    "If it is a bug, open an issue in Jira.",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scrape_config(targets: dict[str, str]) -> str:
    """A job per service, scraping its metrics URL (Prometheus asks for `/metrics` itself)."""
    jobs = "".join(
        f"  - job_name: {name}\n    static_configs:\n      - targets: ['{urlsplit(url).netloc}']\n"
        for name, url in targets.items()
    )
    return f"global:\n  scrape_interval: 1s\nscrape_configs:\n{jobs}"


@pytest.fixture
def prometheus(stack, tmp_path: Path):
    binary = shutil.which("prometheus")
    assert binary, "Debian's prometheus package is missing: run .ci/install-system-deps.sh"
    (tmp_path / "prometheus.yml").write_text(scrape_config(stack.metrics_urls))
    port = free_port()
    argv = [
        binary,
        f"--config.file={tmp_path / 'prometheus.yml'}",
        f"--storage.tsdb.path={tmp_path / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
    ]
    with (tmp_path / "prometheus.log").open("wb") as log:
        server = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


async def query(client: httpx.AsyncClient, promql: str) -> float:
    response = await client.get("/api/v1/query", params={"query": promql})
    result = response.json()["data"]["result"] if response.status_code == 200 else []
    return float(result[0]["value"][1]) if result else 0.0


async def eventually(client: httpx.AsyncClient, promql: str, at_least: float) -> float:
    for _ in range(60):
        value = await query(client, promql)
        if value >= at_least:
            return value
        await asyncio.sleep(0.5)
    return value


async def test_prometheus_sees_turns_model_calls_and_dispatch_steps(stack, prometheus):
    async with SessionClient(stack.gateway_url) as session:
        _state, _ = await gather(session, TURNS)
        await session.say("Yes, that's everything. Please build it.")
        done = await session.wait_for(
            lambda e: e.type in {"workflow_completed", "workflow_failed"}, timeout_s=120
        )
    assert done.type == "workflow_completed"
    async with httpx.AsyncClient(base_url=prometheus) as client:
        turns = await eventually(client, "sum(planwire_turns_total)", len(TURNS) + 1)
        calls = await eventually(
            client, 'sum(planwire_model_calls_total{role="annotator"})', len(TURNS)
        )
        steps = await eventually(client, 'sum(planwire_steps_run_total{outcome="ok"})', 3)
        up = await eventually(client, "sum(up)", len(stack.metrics_urls))
    assert turns >= len(TURNS) + 1 and calls >= len(TURNS) and steps >= 3
    assert up == len(stack.metrics_urls), "every service's /metrics was scraped"
