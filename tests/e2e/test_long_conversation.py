"""A 120-turn conversation through the HTTP API of the embedded stack (real Tansu, Valkey,
service processes): the detail of turn 3, trimmed away long before the end, reaches the
step that needs it through the indexer's outline, and the saved config uses it."""

from __future__ import annotations

import json

import pytest
from redis.asyncio import Redis

from planwire.client import SessionClient
from shared.recall import EARLIER_LABEL
from shared.redis import session_key
from tests.e2e.gathering import gather
from tests.support.long_conversation import EURO_DETAIL, euro_conversation

pytestmark = pytest.mark.e2e
LIMITS = {"topic": 20, "phase": 80}


async def test_a_detail_from_turn_3_of_120_reaches_the_calculator_config(stack):
    texts = euro_conversation(120)
    async with SessionClient(stack.gateway_url) as session:
        state, _ = await gather(session, texts)
        assert state["phase"] == "confirming"
        shown = [m["text"] for m in state["transcript"]]
        await session.say("Yes, build it.")
        done = await session.wait_for(
            lambda e: e.type in {"workflow_completed", "workflow_failed"}, timeout_s=180
        )
        assert done.type == "workflow_completed", done.data
        workflow_id = done.data["workflow_id"]
        document = (await session.http.get(f"/v1/workflows/{workflow_id}")).json()
        outline = (await session.http.get(f"/v1/sessions/{session.session_id}/outline")).json()
    # The stored transcript is bounded (PLANWIRE_TRANSCRIPT_KEEP_TURNS, 40): turn 3 has left it.
    assert EURO_DETAIL not in shown and len(shown) <= 2 * 40
    calculator = next(n for n in document["nodes"] if n.get("specialist") == "calculator")
    assert calculator["config"]["currency"] == "EUR"
    assert calculator["sources"]["currency"] == [3]

    redis = Redis.from_url(stack.redis_url, decode_responses=True)
    try:
        raw = await redis.get(session_key(session.session_id, "plan", "context", "calculator"))
    finally:
        await redis.aclose()
    context = json.loads(raw)
    assert EURO_DETAIL not in [m["text"] for m in context["messages"]]  # outside the window
    assert any(r["text"] == EURO_DETAIL for r in context["recalled"])
    assert EARLIER_LABEL in context["prompt"][-1]["content"]

    assert outline["turns_indexed"] >= 120
    assert 2 <= len(outline["phases"]) <= 3
    assert all(p["turns"] <= LIMITS["phase"] for p in outline["phases"])
    assert all(t["turns"] <= LIMITS["topic"] for p in outline["phases"] for t in p["topics"])
    ranges = [
        (a["first_turn"], a["last_turn"])
        for p in outline["phases"]
        for t in p["topics"]
        for a in t["actions"]
    ]
    assert ranges == [(s, s + 3) for s in range(1, outline["turns_indexed"], 4)]
