"""Requirement gathering on the running system: the shared eval cases up to confirmation."""

from __future__ import annotations

import pytest
from aiokafka import AIOKafkaConsumer

from planwire.client import SessionClient
from schemas.turn import ContextTrimmed
from tests.e2e.gathering import CASES, check_notes, gather, load

pytestmark = pytest.mark.e2e

FILLER = "Use the same layout for all entries, and keep the wording short and friendly, please."


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
async def test_case_reaches_confirming_with_correct_notes(stack, path):
    case = load(path)
    async with SessionClient(stack.gateway_url) as session:
        state, summary = await gather(session, case["turns"])
    check_notes(case, state, summary)


async def last_trimmed(bootstrap: str, session_id: str) -> ContextTrimmed:
    consumer = AIOKafkaConsumer(
        ContextTrimmed.topic.name,
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        group_id=None,
    )
    await consumer.start()
    last = None
    try:
        while batches := await consumer.getmany(timeout_ms=1000):
            for record in (r for batch in batches.values() for r in batch):
                if record.key == session_id.encode():
                    last = ContextTrimmed.model_validate_json(record.value)
    finally:
        await consumer.stop()
    return last


async def test_an_integration_trimmed_out_of_the_context_stays_in_the_notes(stack):
    first = "Watch our Zendesk queue for new tickets."
    async with SessionClient(stack.gateway_url) as session:
        await session.say(first)
        for _ in range(58):
            await session.say(FILLER)
        await session.say("Post a note to Microsoft Teams for each one.")
        notes = (await session.state())["notes"]
    trimmed = await last_trimmed(stack.bootstrap, session.session_id)
    assert trimmed.dropped_units > 0 and first not in [m.text for m in trimmed.messages]
    assert {"zendesk", "microsoft_teams"} <= set(notes["mentioned_integrations"])
