"""The annotator service over FastStream's in-memory broker and a real Valkey."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from schemas.turn import ChatMessage, ContextTrimmed, NotesUpdated
from services.annotator import handlers
from services.annotator.main import service
from services.annotator.store import NotesStore
from shared.model import HeuristicModel
from shared.model.usage import UsageRecordingModel
from tests.support.inmemory import CATALOGUE, TTL, deliver, sent, serving


@pytest_asyncio.fixture
async def annotator(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        store=NotesStore(redis, TTL),
        model=UsageRecordingModel(HeuristicModel(), redis),
        catalogue=CATALOGUE,
        published=service.publisher_of(NotesUpdated),
        threshold=0.8,
        dedupe_ttl_s=TTL,
    )
    async with serving(service, deps) as broker:
        yield broker
    await redis.aclose()


def turn(session_id: str, text: str, phase: str) -> ContextTrimmed:
    return ContextTrimmed(
        session_id=session_id,
        turn_id="t1",
        user_text=text,
        messages=[ChatMessage(role="user", text=text, turn_id="t1")],
        dropped_units=0,
        phase=phase,
    )


async def test_a_gathering_turn_is_folded_into_the_notes(annotator):
    session_id = f"ann-{uuid.uuid4().hex[:10]}"
    await deliver(
        annotator, turn(session_id, "Watch Gmail for invoices and post them to Slack.", "gathering")
    )
    [updated] = [n for n in sent(service, NotesUpdated) if n.session_id == session_id]
    assert {"gmail", "slack"} <= set(updated.notes.mentioned_integrations)
    assert updated.notes.version == 1


async def test_a_turn_outside_gathering_is_not_annotated(annotator):
    session_id = f"ann-{uuid.uuid4().hex[:10]}"
    await deliver(annotator, turn(session_id, "Yes, build it.", "confirming"))
    assert [n for n in sent(service, NotesUpdated) if n.session_id == session_id] == []


async def test_the_naive_policy_charges_the_whole_history_to_the_session(redis_url, monkeypatch):
    """With estimated tokens, the same turn costs more prompt under naive (history as turns)."""
    from shared.model.usage import read_usage

    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        store=NotesStore(redis, TTL),
        model=UsageRecordingModel(HeuristicModel(estimate_tokens=True), redis),
        catalogue=CATALOGUE,
        published=service.publisher_of(NotesUpdated),
        threshold=0.8,
        dedupe_ttl_s=TTL,
    )
    history = [
        ChatMessage(role="user", text="I want to automate invoices. " * 10, turn_id="t0"),
        ChatMessage(role="assistant", text="Where do they come from?", turn_id="t0"),
        ChatMessage(role="user", text="From Gmail.", turn_id="t1"),
    ]
    spent = {}
    try:
        async with serving(service, deps) as broker:
            for policy in ("default", "naive"):
                monkeypatch.setenv("PLANWIRE_CONTEXT_POLICY", policy)
                session_id = f"ann-{policy}-{uuid.uuid4().hex[:8]}"
                event = turn(session_id, "From Gmail.", "gathering").model_copy(
                    update={"messages": history}
                )
                await deliver(broker, event)
                spent[policy] = (await read_usage(redis, session_id))["by_role"]["annotator"]
    finally:
        await redis.aclose()
    # The earlier user message (~75 tokens) and the reply go in as turns under naive only.
    assert spent["naive"]["prompt_tokens"] - spent["default"]["prompt_tokens"] >= 75


def numbered(session_id: str, seq: int, text: str) -> ContextTrimmed:
    return ContextTrimmed(
        session_id=session_id,
        turn_id=f"t{seq}",
        user_text=text,
        messages=[ChatMessage(role="user", text=text, turn_id=f"t{seq}")],
        dropped_units=0,
        phase="gathering",
    )


async def test_two_replicas_taking_turns_lose_no_turn_of_the_notes(redis_url):
    """Each replica remembers the notes it wrote; one that another replica wrote past is
    caught by the compare-and-set and refolds onto the stored notes."""
    redis = Redis.from_url(redis_url, decode_responses=True)

    def replica() -> handlers.Deps:
        return handlers.Deps(
            redis=redis,
            store=NotesStore(redis, TTL),
            model=HeuristicModel(),
            catalogue=CATALOGUE,
            published=service.publisher_of(NotesUpdated),
            threshold=0.8,
            dedupe_ttl_s=TTL,
        )

    first, second, session_id = replica(), replica(), f"ann-{uuid.uuid4().hex[:10]}"
    turns = ["Watch Gmail for new invoices.", "Post each one to Slack.", "Also log it in Airtable."]
    async with serving(service, first):
        for seq, (deps, text) in enumerate(zip([first, second, first], turns, strict=True), 1):
            await handlers.annotate(numbered(session_id, seq, text), deps)
        await redis.flushall()  # Valkey lost the notes: the replica's memory is not used
        await handlers.annotate(numbered(session_id, 4, "And Notion."), first)
        updates = [n for n in sent(service, NotesUpdated) if n.session_id == session_id]
    assert [n.notes.version for n in updates] == [1, 2, 3, 1]
    assert {"gmail", "slack", "airtable"} <= set(updates[2].notes.mentioned_integrations)
    assert "gmail" not in updates[3].notes.mentioned_integrations
    await redis.aclose()
