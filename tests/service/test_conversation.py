"""The conversation service over FastStream's in-memory broker and a real Valkey."""

from __future__ import annotations

import uuid

import pytest_asyncio
from prometheus_client import REGISTRY
from redis.asyncio import Redis

from schemas.turn import (
    ChatMessage,
    ContextTrimmed,
    Notes,
    NotesUpdated,
    Reference,
    ReplyDelta,
    ReplyGenerated,
)
from services.conversation import handlers, store
from services.conversation.main import service
from shared.model import HeuristicModel, ModelPort
from shared.model.port import Backend, Call, ModelResult
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


class Wording(Backend):
    """A model that words every reply the same way, whatever it is given."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def answer(self, call: Call) -> ModelResult:
        """The fixed wording, as a model's answer."""
        return ModelResult({"text": self.text}, "ok", 0, 0, 0.0)


async def serve(redis_url: str, model: ModelPort):
    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        model=UsageRecordingModel(model, redis),
        catalogue=CATALOGUE,
        replies=service.publisher_of(ReplyGenerated),
        deltas=service.publisher_of(ReplyDelta),
        replied=store.RepliedNotes(redis, TTL),
        dedupe_ttl_s=TTL,
    )
    return redis, serving(service, deps)


@pytest_asyncio.fixture
async def conversation(redis_url):
    redis, served = await serve(redis_url, HeuristicModel())
    async with served as broker:
        yield broker, redis
    await redis.aclose()


def counted(rule: str) -> float:
    labels = {"service": "conversation", "rule": rule}
    return REGISTRY.get_sample_value("planwire_overrides_total", labels) or 0.0


async def notes_updated(
    redis: Redis, *, ready: bool, notes: Notes = NOTES, session_id: str = "", turn: int = 1
) -> NotesUpdated:
    session_id = session_id or f"conv-{uuid.uuid4().hex[:10]}"
    await redis.set(session_key(session_id, "phase"), "gathering")
    context = ContextTrimmed(
        session_id=session_id,
        turn_id=f"t{turn}",
        user_text=TEXT,
        messages=[ChatMessage(role="user", text=TEXT, turn_id=f"t{turn}")],
        dropped_units=0,
        phase="gathering",
    )
    return NotesUpdated(
        session_id=session_id,
        turn_id=f"t{turn}",
        notes=notes,
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


def with_trello(notes: Notes) -> Notes:
    refs = [Reference(id=i, role="wanted", at=n) for n, i in enumerate(["gmail", "slack"])]
    refs.append(Reference(id="trello", role="wanted", at=200_000))
    return notes.model_copy(
        update={
            "version": notes.version + 1,
            "mentioned_integrations": ["gmail", "slack", "trello"],
            "references": refs,
        }
    )


async def test_the_next_reply_says_what_the_message_added(conversation):
    broker, redis = conversation
    first = await notes_updated(redis, ready=False)
    await deliver(broker, first)
    second = await notes_updated(
        redis, ready=False, notes=with_trello(NOTES), session_id=first.session_id, turn=2
    )
    await deliver(broker, second)
    replies = [r for r in sent(service, ReplyGenerated) if r.session_id == first.session_id]
    assert replies[-1].text.startswith("Added: Trello.")


async def test_a_model_reply_naming_an_app_not_in_the_notes_is_replaced_and_counted(redis_url):
    redis, served = await serve(redis_url, Wording("Added Jira. Which Jira project should it use?"))
    before = counted("model_reply_names_app_not_in_notes")
    async with served as broker:
        event = await notes_updated(redis, ready=False)
        await deliver(broker, event)
        [reply] = [r for r in sent(service, ReplyGenerated) if r.session_id == event.session_id]
    await redis.aclose()
    assert "Jira" not in reply.text and "?" in reply.text
    assert counted("model_reply_names_app_not_in_notes") - before == 1


async def test_a_model_reply_that_keeps_to_the_notes_is_used(redis_url):
    wording = "Thanks! Which Slack channel should the Gmail invoices go to?"
    redis, served = await serve(redis_url, Wording(wording))
    async with served as broker:
        event = await notes_updated(redis, ready=False)
        await deliver(broker, event)
        [reply] = [r for r in sent(service, ReplyGenerated) if r.session_id == event.session_id]
    await redis.aclose()
    assert reply.text == wording


async def test_a_redelivered_turn_is_compared_with_the_same_notes_as_the_first_time(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    replied, session_id = store.RepliedNotes(redis, TTL), f"conv-{uuid.uuid4().hex[:10]}"
    assert await replied.before(session_id, NOTES) == Notes()
    newer = with_trello(NOTES)
    assert await replied.before(session_id, newer) == NOTES
    assert await replied.before(session_id, newer) == NOTES  # the same turn, delivered again
    await redis.aclose()
