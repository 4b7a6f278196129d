"""The shared eval cases end to end with the real local model (SmolLM2-135M).

The model is weak on purpose: it misses and invents names. Code's accumulation, forcing
functions, summary guarantee and plan rules must keep every case right anyway — both the
notes at confirmation (issue: requirement gathering) and the compiled plan (issue: eval).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from planwire.client import SessionClient
from planwire.evaluate import case_from, score
from planwire.stack import EmbeddedStack
from services.specialist import values
from shared.model.factory import ModelSettings
from tests.e2e.gathering import CASES, check_notes, gather, load

pytestmark = [pytest.mark.e2e, pytest.mark.model]
CONCURRENT_CASES = 4  # the local server has 4 slots; batching them is faster on 2 cores
FINAL = {"workflow_completed", "workflow_failed"}


@pytest.fixture(scope="module")
def local_stack():
    with EmbeddedStack(ModelSettings(model="local")) as stack:
        yield stack


async def play(url: str, raw: dict, gate: asyncio.Semaphore) -> dict:
    async with gate, SessionClient(url, timeout_s=600) as session:
        state, summary = await gather(session, raw["turns"])
        gathered = time.monotonic()
        if state["phase"] == "confirming":
            await session.say(raw["confirm"])
            final = await session.wait_for(lambda e: e.type in FINAL)
        plan = next((e.data["specialists"] for e in session.seen if e.type == "plan"), [])
        usage = (await session.state())["usage"]
        saved = final.data.get("workflow_id")
        document = (await session.http.get(f"/v1/workflows/{saved}")).json() if saved else {}
    return {
        "raw": raw,
        "state": state,
        "summary": summary,
        "final": final.type,
        "plan": plan,
        "usage": usage,
        "gathered": gathered,
        "document": document,
    }


async def test_every_case_is_noted_confirmed_and_planned_with_the_local_model(local_stack):
    gate, started = asyncio.Semaphore(CONCURRENT_CASES), time.monotonic()
    runs = await asyncio.gather(*(play(local_stack.gateway_url, load(p), gate) for p in CASES))
    last_confirming = max(run["gathered"] for run in runs) - started
    print(
        f"\nlocal model: {len(runs)} cases confirming after {last_confirming:.0f}s, end to end in {time.monotonic() - started:.0f}s"
    )
    for run in runs:
        print(
            f"local model: {run['raw']['id']} {run['final']} plan={run['plan']} (missing, forbidden, extra)={score(case_from(run['raw']), run['plan'])}"
        )
    for run in runs:
        check_notes(run["raw"], run["state"], run["summary"])
        assert run["final"] == "workflow_completed", run["raw"]["id"]
        # Nothing missing, nothing forbidden, nothing the case did not ask for (extra).
        assert score(case_from(run["raw"]), run["plan"]) == ([], [], []), (
            run["raw"]["id"],
            run["plan"],
        )
        assert run["usage"].get("prompt_tokens", 0) > 0, (
            f"{run['raw']['id']}: the model was never called"
        )
        check_document(run["raw"]["id"], run["document"])


def check_document(case_id: str, document: dict) -> None:
    """Whatever the weak model wrote, the saved workflow is sound: code grounded it."""
    assert not values.echoes_prompt(document["title"]), (case_id, document["title"])
    if schedule := document["schedule"]:
        assert values.is_cron(schedule["cron"]) and values.is_timezone(schedule["timezone"]), (
            case_id,
            schedule,
        )
    for node in document["nodes"]:
        strings = [v for v in node["config"].values() if isinstance(v, str)]
        assert not any(values.echoes_prompt(v) for v in strings), (case_id, node)
