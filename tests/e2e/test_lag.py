"""Consumer lag on a real Prometheus scrape: it rises while a specialist is down, falls after.

The lag exporter (services/lag) runs in the embedded stack like any service; Prometheus
scrapes it with every other service.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from planwire import probes
from planwire.client import SessionClient
from planwire.procs import stop_children
from tests.e2e.gathering import gather
from tests.e2e.test_prometheus import TURNS, prometheus, query  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e

RUN_STEP_LAG = 'max(planwire_consumer_lag{topic=~".+\\\\.run-step\\\\.v1"})'


async def build(session: SessionClient) -> None:
    """Talk a session up to confirmation and confirm it (the steps are left to run)."""
    state, _ = await gather(session, TURNS)
    assert state["phase"] == "confirming"
    await session.say("Yes, that's everything. Please build it.")


async def until(client: httpx.AsyncClient, promql: str, ok, timeout_s: float = 90.0) -> float:
    """Poll Prometheus until `ok(value)`; returns the last value either way."""
    value = await query(client, promql)
    for _ in range(int(timeout_s * 2)):
        if ok(value):
            return value
        await asyncio.sleep(0.5)
        value = await query(client, promql)
    return value


async def test_lag_rises_while_a_specialist_is_down_and_falls_when_it_is_back(stack, prometheus):
    specialist = next(c for c in stack.services if c.name == "specialist")
    async with httpx.AsyncClient(base_url=prometheus) as prom:
        # A first workflow: the specialist's consumer groups commit on the runner topics.
        async with SessionClient(stack.gateway_url) as first:
            await build(first)
            done = await first.wait_for(lambda e: e.type.startswith("workflow_"), timeout_s=120)
        assert done.type == "workflow_completed"
        assert await until(prom, RUN_STEP_LAG, lambda v: v == 0) == 0

        stop_children([specialist])
        try:
            async with SessionClient(stack.gateway_url) as second:
                await build(second)
                risen = await until(prom, RUN_STEP_LAG, lambda v: v >= 1)
                assert risen >= 1, "no lag seen on a run-step topic while its consumer was down"

                specialist.start()
                await probes.http_healthy(specialist, stack.service_urls["specialist"])
                done = await second.wait_for(
                    lambda e: e.type.startswith("workflow_"), timeout_s=180
                )
        finally:
            if not specialist.running():  # leave the shared stack whole for other tests
                specialist.start()
                await probes.http_healthy(specialist, stack.service_urls["specialist"])
        assert done.type == "workflow_completed"
        assert await until(prom, RUN_STEP_LAG, lambda v: v == 0) == 0
