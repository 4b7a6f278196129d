"""The page's session list: each tenant sees its own sessions, newest first, and no others."""

from __future__ import annotations

import pytest_asyncio
from redis.asyncio import Redis

from schemas.turn import ChatMessage
from services.gateway import store as store_module
from services.gateway.store import SessionStore
from shared.redis import session_key


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    yield client
    await client.aclose()


async def test_a_tenant_lists_its_own_sessions_newest_first_with_their_first_words(redis):
    store = SessionStore(redis, ttl_s=3600)
    for session_id, tenant in (("s-one", "acme"), ("s-two", "acme"), ("s-other", "globex")):
        await store.create(session_id, tenant)
    first = ChatMessage(role="user", text="Invoices arrive in Gmail", turn_id="t-1")
    await redis.zadd(session_key("s-one", "transcript"), {f"m1|{first.model_dump_json()}": 1})
    await redis.set(session_key("s-two", "phase"), "completed")

    listed = await store.sessions_of("acme")

    assert [s["session_id"] for s in listed] == ["s-two", "s-one"]
    assert listed[0]["phase"] == "completed" and listed[0]["title"] == ""
    assert listed[1]["title"] == "Invoices arrive in Gmail"
    assert [s["session_id"] for s in await store.sessions_of("globex")] == ["s-other"]
    assert await store.sessions_of("nobody") == []


async def test_expired_sessions_drop_out_and_the_list_is_bounded(redis, monkeypatch):
    monkeypatch.setattr(store_module, "SESSION_LIST_MAX", 3)
    store = SessionStore(redis, ttl_s=3600)
    for i in range(5):
        await store.create(f"s-{i}", "acme")
    await redis.delete(session_key("s-4", "tenant"))  # its records expired

    listed = [s["session_id"] for s in await store.sessions_of("acme")]

    assert listed == ["s-3", "s-2"]
    assert await redis.zcard(store_module.tenant_sessions_key("acme")) == 3
