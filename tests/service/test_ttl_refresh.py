"""TTLs on a real Valkey: every key a store creates gets one, refreshed once per window."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from schemas.outline import IndexedTurn
from schemas.turn import ChatMessage
from services.gateway.store import SessionStore
from services.indexer.store import OutlineStore
from services.trimmer.store import TranscriptStore
from shared.redis import session_key

TTL = 3600


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


def new_session() -> str:
    return f"ttl-{uuid.uuid4().hex[:12]}"


def user(turn: int) -> ChatMessage:
    return ChatMessage(role="user", text=f"message {turn}", turn_id=f"t{turn}")


async def expires(redis: Redis) -> int:
    return int((await redis.info("commandstats")).get("cmdstat_expire", {}).get("calls", 0))


async def test_a_transcript_gets_its_ttl_once_then_again_after_the_window(redis):
    store, clock, sid = TranscriptStore(redis, TTL, 40), Clock(), new_session()
    store.fresh.clock = clock
    keys = [session_key(sid, "transcript")]
    history, phase = await store.add_user_and_read(sid, 1, user(1))
    assert [await redis.ttl(k) for k in keys] == [TTL] and phase == "gathering"
    for key in keys:
        await redis.expire(key, 100)  # as if time had passed
    before = await expires(redis)
    history, phase = await store.add_user_and_read(sid, 2, user(2), "confirming")
    assert await expires(redis) == before  # within the window: no EXPIRE at all
    assert [m.text for m in history] == ["message 1", "message 2"] and phase == "confirming"
    assert all(0 < ttl <= 100 for ttl in [await redis.ttl(k) for k in keys])
    clock.now += store.fresh.window_s
    await store.add_reply(sid, "r2", ChatMessage(role="assistant", text="ok", turn_id="t2"))
    assert [await redis.ttl(k) for k in keys] == [TTL]


async def test_a_transcript_created_while_fresh_still_gets_its_ttl(redis):
    store, sid = TranscriptStore(redis, TTL, 40), new_session()
    store.fresh.refreshed(sid, "transcript")  # e.g. the keys were lost and are made anew
    await store.add_user(sid, 1, user(1))
    assert await redis.ttl(session_key(sid, "transcript")) == TTL


async def test_the_transcript_keeps_its_window_with_the_read_in_the_same_script(redis):
    store, sid = TranscriptStore(redis, TTL, 2), new_session()
    for turn in range(1, 5):
        history, _ = await store.add_user_and_read(sid, turn, user(turn))
    assert [m.text for m in history] == ["message 3", "message 4"]
    assert not await store.add_user(sid, 4, user(4))  # a redelivery adds nothing
    assert await redis.zcard(session_key(sid, "transcript")) == 2


async def test_the_outbox_gets_its_ttl_on_the_first_event_and_touch_once_a_window(redis):
    store, sid = SessionStore(redis, TTL), new_session()
    await store.create(sid, "acme")
    await store.publish_outbound(sid, "e1", "reply", {"text": "hi"})
    assert await redis.ttl(session_key(sid, "outbox")) == TTL
    await redis.expire(session_key(sid, "phase"), 100)
    before = await expires(redis)
    await store.touch(sid)
    await store.publish_outbound(sid, "e2", "reply", {"text": "again"})
    assert await expires(redis) == before and await redis.ttl(session_key(sid, "phase")) <= 100
    assert [e[1] for e in await store.read_outbound(sid, "0-0")] == ["reply", "reply"]


async def test_the_indexer_says_when_a_turns_batch_is_complete(redis):
    store, sid = OutlineStore(redis, TTL), new_session()
    batch = range(1, 5)
    done = [
        await store.add_turn(sid, IndexedTurn(seq=n, turn_id=f"t{n}", text="x", ids=[]), batch)
        for n in (1, 2, 4, 3)
    ]
    assert done == [False, False, False, True]
    assert await redis.ttl(session_key(sid, "outline", "turns")) == TTL
