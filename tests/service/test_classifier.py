"""The classifier service over FastStream's in-memory broker and a real Valkey."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from schemas.turn import ChatMessage, ContextTrimmed, Notes
from services.classifier import handlers
from services.classifier.main import service
from shared.model import HeuristicModel
from shared.model.usage import UsageRecordingModel
from shared.redis import session_key
from tests.support.inmemory import CATALOGUE, TTL, deliver, sent, serving

NOTES = Notes(
    version=2,
    requirement_summary="Gmail invoices to Slack.",
    mentioned_integrations=["gmail", "slack"],
    confidence_score=0.9,
)


@pytest_asyncio.fixture
async def classifier(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        model=UsageRecordingModel(HeuristicModel(), redis),
        catalogue=CATALOGUE,
        classified=service.publisher_of(ReplyClassified),
        confirmed=service.publisher_of(RequirementsConfirmed),
        dedupe_ttl_s=TTL,
    )
    async with serving(service, deps) as broker:
        yield broker, redis
    await redis.aclose()


async def reply(redis: Redis, text: str, phase: str) -> ContextTrimmed:
    session_id = f"cls-{uuid.uuid4().hex[:10]}"
    await redis.set(session_key(session_id, "phase"), phase)
    await redis.set(session_key(session_id, "notes"), NOTES.model_dump_json())
    return ContextTrimmed(
        session_id=session_id,
        turn_id="t2",
        user_text=text,
        messages=[ChatMessage(role="user", text=text, turn_id="t2")],
        dropped_units=0,
        phase=phase,
    )


def of_session(kind: type, session_id: str) -> list:
    return [e for e in sent(service, kind) if e.session_id == session_id]


async def test_a_yes_confirms_the_notes_and_moves_the_session_to_planning(classifier):
    broker, redis = classifier
    event = await reply(redis, "Yes, build it.", "confirming")
    await deliver(broker, event)
    [verdict] = of_session(ReplyClassified, event.session_id)
    [confirmed] = of_session(RequirementsConfirmed, event.session_id)
    assert verdict.verdict == "confirmed"
    assert confirmed.notes.ready and confirmed.notes.mentioned_integrations == ["gmail", "slack"]
    assert await redis.get(session_key(event.session_id, "phase")) == "planning"


async def test_a_new_integration_in_the_reply_is_an_amend(classifier):
    broker, redis = classifier
    event = await reply(redis, "Yes, and also create a Jira issue.", "confirming")
    await deliver(broker, event)
    [verdict] = of_session(ReplyClassified, event.session_id)
    assert verdict.verdict == "amend" and of_session(RequirementsConfirmed, event.session_id) == []
    assert await redis.get(session_key(event.session_id, "phase")) == "gathering"


async def test_a_turn_while_gathering_is_not_classified(classifier):
    broker, redis = classifier
    event = await reply(redis, "Yes, build it.", "gathering")
    await deliver(broker, event)
    assert of_session(ReplyClassified, event.session_id) == []
