"""A detail the trimmer dropped long ago still reaches the prompts and the step that need it.

Every service's handlers over one real Valkey and an in-memory bus; the e2e twin of this
test plays the same conversation through the HTTP API of the embedded stack.
"""

from __future__ import annotations

import json

import pytest_asyncio
from redis.asyncio import Redis

from planwire.evaluate import MAX_NUDGES, NUDGE
from schemas.plan import WorkflowCompleted
from schemas.turn import ContextTrimmed, Phase
from shared.model import HeuristicModel
from shared.recall import EARLIER_LABEL
from shared.redis import session_key
from tests.support.inmemory import Services
from tests.support.long_conversation import EURO_DETAIL, euro_conversation


class RecordingHeuristic(HeuristicModel):
    """The rules backend, keeping every prompt it was given by role."""

    def __init__(self) -> None:
        self.prompts: dict[str, list[str]] = {}

    async def structured(self, role, messages, schema, **options):
        self.prompts.setdefault(role, []).append(messages[-1]["content"])
        return await super().structured(role, messages, schema, **options)


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


async def test_the_euro_detail_of_turn_3_reaches_the_calculator_config_after_120_turns(redis):
    model = RecordingHeuristic()
    services = Services(redis, model)
    session_id, texts = await services.new_session(), euro_conversation(120)
    for seq, text in enumerate(texts, 1):
        reply = await services.say(session_id, seq, text)
    seq = len(texts)
    for _ in range(MAX_NUDGES):
        if reply.phase == Phase.CONFIRMING:
            break
        seq += 1
        reply = await services.say(session_id, seq, NUDGE)
    assert reply.phase == Phase.CONFIRMING, reply.text
    last_context = services.bus.of(ContextTrimmed)[-1]
    assert last_context.dropped_units > 0
    assert EURO_DETAIL not in [m.text for m in last_context.messages]  # trimmed away
    await services.say(session_id, seq + 1, "Yes, build it.")
    assert services.bus.of(WorkflowCompleted), "the workflow was not built"

    # The annotator's prompt for the request carried the detail, labelled as reference.
    request = next(p for p in model.prompts["annotator"] if texts[-1] in p)
    assert request.startswith(EARLIER_LABEL) and EURO_DETAIL in request
    # The calculator step's context recalled turn 3, and its config uses it.
    recorded = json.loads(
        await redis.get(session_key(session_id, "plan", "context", "calculator")) or "{}"
    )
    assert {"turn": 3, "turn_id": "t3", "text": EURO_DETAIL} in recorded["recalled"]
    assert EURO_DETAIL not in [m["text"] for m in recorded["messages"]]
    assert EARLIER_LABEL in recorded["prompt"][-1]["content"]
    document = json.loads(await redis.get(session_key(session_id, "workflow", "doc")))
    calculator = next(n for n in document["nodes"] if n.get("specialist") == "calculator")
    assert calculator["config"]["currency"] == "EUR"
    assert calculator["sources"]["currency"] == [3]  # the document cites the turn
