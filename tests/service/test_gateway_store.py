"""The gateway's session store on a real Valkey: turns are numbered only while a session is open."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from schemas.turn import Phase
from services.gateway.routes import OPEN_PHASES
from services.gateway.store import SessionStore
from shared.redis import session_key


@pytest_asyncio.fixture
async def store(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    yield SessionStore(redis, 3600)
    await redis.aclose()


async def test_turns_are_numbered_while_gathering_and_confirming(store):
    session_id = f"gw-{uuid.uuid4().hex[:10]}"
    await store.create(session_id, "tenant-a")
    first = await store.next_turn_if_open(session_id, OPEN_PHASES)
    await store.redis.set(session_key(session_id, "phase"), Phase.CONFIRMING)
    second = await store.next_turn_if_open(session_id, OPEN_PHASES)
    assert (first, second) == ((1, Phase.GATHERING), (2, Phase.CONFIRMING))
    assert await store.redis.ttl(session_key(session_id, "turns")) > 0


async def test_a_closed_session_gets_no_turn_and_says_its_phase(store):
    session_id = f"gw-{uuid.uuid4().hex[:10]}"
    await store.create(session_id, "tenant-a")
    await store.next_turn_if_open(session_id, OPEN_PHASES)
    await store.redis.set(session_key(session_id, "phase"), Phase.PLANNING)
    assert await store.next_turn_if_open(session_id, OPEN_PHASES) == (None, Phase.PLANNING)
    assert await store.redis.get(session_key(session_id, "turns")) == "1"


async def test_a_session_without_a_phase_counts_as_gathering(store):
    session_id = f"gw-{uuid.uuid4().hex[:10]}"
    assert await store.next_turn_if_open(session_id, OPEN_PHASES) == (1, Phase.GATHERING)
