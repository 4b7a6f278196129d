"""The session's phase moves only along the transition table, on a real Valkey."""

from __future__ import annotations

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from schemas.turn import Phase
from state import session


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


async def test_an_illegal_transition_is_refused_before_anything_is_written(redis):
    await session.open_session(redis, "s-illegal", "acme", 60)
    with pytest.raises(session.IllegalTransition, match="gathering -> executing"):
        await session.advance(redis, "s-illegal", Phase.GATHERING, Phase.EXECUTING)
    assert await session.phase(redis, "s-illegal") == Phase.GATHERING


async def test_advance_moves_once_tolerates_a_redelivery_and_refuses_a_stale_event(redis):
    await session.open_session(redis, "s-adv", "acme", 60)
    assert await session.advance(redis, "s-adv", Phase.GATHERING, Phase.CONFIRMING)
    assert await session.advance(redis, "s-adv", Phase.GATHERING, Phase.CONFIRMING)  # again
    assert not await session.advance(redis, "s-adv", Phase.PLANNING, Phase.EXECUTING)
    assert await session.phase(redis, "s-adv") == Phase.CONFIRMING
    assert 0 < await redis.ttl("pw:{s-adv}:phase") <= 60  # the move keeps the session's TTL


async def test_a_new_session_belongs_to_its_tenant_and_starts_gathering(redis):
    assert await session.tenant(redis, "s-new") is None
    await session.open_session(redis, "s-new", "acme", 60)
    assert await session.tenant(redis, "s-new") == "acme"
    assert await session.phase(redis, "s-new") == Phase.GATHERING
