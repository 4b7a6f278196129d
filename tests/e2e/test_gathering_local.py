"""The shared eval cases with the real local model (SmolLM2-135M): code keeps the ids right.

The model is weak on purpose: it misses and invents names. The accumulation, forcing
functions and summary guarantees must hold anyway.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from planwire.client import SessionClient
from planwire.stack import EmbeddedStack
from shared.model.factory import ModelSettings
from tests.e2e.gathering import CASES, check_notes, gather, load

pytestmark = [pytest.mark.e2e, pytest.mark.model]
CONCURRENT_CASES = 4  # the local server has 4 slots; batching them is faster on 2 cores


@pytest.fixture(scope="module")
def local_stack():
    with EmbeddedStack(ModelSettings(model="local")) as stack:
        yield stack


async def play(url: str, case: dict, gate: asyncio.Semaphore) -> tuple[dict, dict, str]:
    async with gate, SessionClient(url, timeout_s=300) as session:
        state, summary = await gather(session, case["turns"])
    return case, state, summary


async def test_every_case_reaches_confirming_with_the_local_model(local_stack):
    gate, started = asyncio.Semaphore(CONCURRENT_CASES), time.monotonic()
    results = await asyncio.gather(*(play(local_stack.gateway_url, load(p), gate) for p in CASES))
    print(f"local model: {len(results)} cases in {time.monotonic() - started:.0f}s")
    for case, state, summary in results:
        check_notes(case, state, summary)
        assert sum(state["usage"].values()) > 0, f"{case['id']}: the model was never called"
