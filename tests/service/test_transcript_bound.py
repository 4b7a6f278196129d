"""A 300-turn session through the trimmer and the indexer (in-memory broker, real Valkey):
the stored transcript stays the newest N turns, its keys keep their TTLs, and the detail of
turn 3, long gone from it, still reaches the annotator's prompt through the outline's recall."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from catalog import find_mentions, load_catalogue
from schemas.turn import ContextTrimmed, ReplyGenerated, TurnReceived
from services.annotator.recall import earlier_block
from services.indexer import handlers as indexer
from services.indexer.logic import Limits
from services.indexer.main import service as indexer_service
from services.indexer.store import OutlineStore
from services.trimmer import handlers
from services.trimmer.main import service
from services.trimmer.store import TranscriptStore
from shared.model import HeuristicModel
from shared.redis import session_key
from tests.support.inmemory import TTL, deliver, sent, serving

KEEP = 20
DETAIL = "Amounts are in euros, rounded to whole cents, for the Lisbon office."


@pytest_asyncio.fixture
async def bounded(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    deps = handlers.Deps(
        redis=redis,
        store=TranscriptStore(redis, TTL, keep_turns=KEEP),
        trimmed=service.publisher_of(ContextTrimmed),
        budget_tokens=100_000,  # the window, not the token budget, is what is tested here
        dedupe_ttl_s=TTL,
    )
    indexing = indexer.Deps(
        redis=redis,
        store=OutlineStore(redis, TTL),
        model=HeuristicModel(),
        catalogue=load_catalogue(),
        limits=Limits(topic_turns=20, phase_turns=80),
        dedupe_ttl_s=TTL,
    )
    async with serving(service, deps) as broker, serving(indexer_service, indexing) as outline:
        yield broker, outline, redis
    await redis.aclose()


def text_of(seq: int) -> str:
    return DETAIL if seq == 3 else f"Turn {seq}: add step {seq} to the report, same as before."


async def footprint(redis: Redis, session_id: str) -> dict[str, int]:
    keys = await redis.keys(session_key(session_id, "transcript*"))
    return {
        "keys": len(keys),
        "entries": await redis.zcard(session_key(session_id, "transcript")),
        # SAMPLES 0 counts every element: the default estimate from five samples varies.
        "bytes": sum([await redis.memory_usage(k, samples=0) or 0 for k in keys]),
        "min_ttl": min([await redis.ttl(k) for k in keys]),
    }


async def test_300_turns_keep_the_transcript_bounded_and_turn_3_recallable(bounded):
    broker, indexing, redis = bounded
    session_id = f"long-{uuid.uuid4().hex[:10]}"
    sizes = {}
    for seq in range(1, 301):
        turn_id = f"t{seq}"
        event = TurnReceived(
            session_id=session_id, turn_id=turn_id, text=text_of(seq), turn_seq=seq
        )
        await deliver(broker, event)
        await deliver(indexing, event)  # its own consumer group gets the same turn
        reply = ReplyGenerated(
            session_id=session_id,
            turn_id=turn_id,
            text=f"Noted step {seq}. Anything else?",
            reply_kind="question",
            phase="gathering",
            turn_seq=seq,
        )
        await deliver(broker, reply)
        if seq in (100, 300):
            sizes[seq] = await footprint(redis, session_id)

    # Bounded: the newest KEEP turns (a user message and its reply each), whatever the length.
    for seq in (100, 300):
        assert sizes[seq]["entries"] == 2 * KEEP, sizes
        assert sizes[seq]["keys"] == 1, sizes
        assert 0 < sizes[seq]["min_ttl"] <= TTL, sizes
    assert sizes[300]["bytes"] <= sizes[100]["bytes"] * 1.1, sizes

    contexts = [c for c in sent(service, ContextTrimmed) if c.session_id == session_id]
    last = contexts[-1]
    # Readers get only the window: the last turn's context starts at turn 281.
    assert [m.turn_id for m in last.messages if m.role == "user"] == [
        f"t{s}" for s in range(301 - KEEP, 301)
    ]
    assert last.dropped_units == 300 - KEEP
    assert DETAIL not in [m.text for m in last.messages]

    # The early detail is one recall away: a turn that asks about it gets turn 3 back.
    asking = last.model_copy(update={"user_text": "Which currency and which office, again?"})
    mentions = find_mentions(asking.user_text, load_catalogue())
    block = await earlier_block(redis, asking, mentions)
    assert DETAIL in block, block
