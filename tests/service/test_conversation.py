"""The conversation service over FastStream's in-memory broker and a real Valkey."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from schemas.turn import ChatMessage, ContextTrimmed, Notes, NotesUpdated, ReplyGenerated
from services.conversation import handlers
from services.conversation.main import service
from shared.model import HeuristicModel
from shared.model.usage import UsageRecordingModel
from shared.redis import session_key
from tests.support.inmemory import CATALOGUE, TTL, deliver, sent, serving

TEXT = "Watch Gmail for invoices and post them to Slack."
NOTES = Notes(
    version=1,
    requirement_summary="Gmail invoices to Slack.",
    mentioned_integrations=["gmail", "slack"],
    confidence_score=0.9,
)


@pytest_asyncio.fixture
async def conversation(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        model=UsageRecordingModel(HeuristicModel(), redis),
        catalogue=CATALOGUE,
        replies=service.publisher_of(ReplyGenerated),
        dedupe_ttl_s=TTL,
    )
    async with serving(service, deps) as broker:
        yield broker, redis
    await redis.aclose()


async def notes_updated(redis: Redis, *, ready: bool) -> NotesUpdated:
    session_id = f"conv-{uuid.uuid4().hex[:10]}"
    await redis.set(session_key(session_id, "phase"), "gathering")
    context = ContextTrimmed(
        session_id=session_id,
        turn_id="t1",
        user_text=TEXT,
        messages=[ChatMessage(role="user", text=TEXT, turn_id="t1")],
        dropped_units=0,
        phase="gathering",
    )
    return NotesUpdated(
        session_id=session_id,
        turn_id="t1",
        notes=NOTES,
        ready_for_confirmation=ready,
        context=context,
    )


async def test_notes_that_are_not_ready_get_a_question(conversation):
    broker, redis = conversation
    event = await notes_updated(redis, ready=False)
    await deliver(broker, event)
    [reply] = [r for r in sent(service, ReplyGenerated) if r.session_id == event.session_id]
    assert (reply.reply_kind, reply.phase) == ("question", "gathering") and reply.text
    assert await redis.get(session_key(event.session_id, "phase")) == "gathering"


async def test_ready_notes_get_the_confirmation_summary_and_the_session_confirms(conversation):
    broker, redis = conversation
    event = await notes_updated(redis, ready=True)
    await deliver(broker, event)
    [reply] = [r for r in sent(service, ReplyGenerated) if r.session_id == event.session_id]
    assert (reply.reply_kind, reply.phase) == ("confirmation", "confirming")
    assert all(CATALOGUE.get(i).name in reply.text for i in ("gmail", "slack"))
    assert await redis.get(session_key(event.session_id, "phase")) == "confirming"
