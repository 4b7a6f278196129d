"""No session key lives without a TTL, also when Valkey loses its data between two writes
while every store still holds its "refreshed within the window" mark (shared/ttl.py)."""

from __future__ import annotations

import uuid

import pytest_asyncio
from redis.asyncio import Redis

from schemas.outline import IndexedTurn
from schemas.turn import ChatMessage, Notes
from services.annotator.store import NotesStore
from services.classifier.store import record_verdict
from services.conversation.store import RepliedNotes
from services.gateway.store import SessionStore
from services.indexer.store import OutlineStore
from services.trimmer.store import TranscriptStore
from shared.idempotency import claim
from shared.redis import session_key

TTL = 3600
OPEN = ("gathering", "confirming")


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


class Stores:
    """One store of each writer of a turn, sharing one Valkey."""

    def __init__(self, redis: Redis) -> None:
        self.gateway, self.trimmer = SessionStore(redis, TTL), TranscriptStore(redis, TTL, 40)
        self.indexer, self.notes = OutlineStore(redis, TTL), NotesStore(redis, TTL)
        self.conversation, self.redis = RepliedNotes(redis, TTL), redis


async def write_one_of_each(stores: Stores, sid: str, seq: int, lose_data: bool) -> None:
    """A turn's writes, in the order the hops make them; FLUSHALL before each when asked."""
    message = ChatMessage(role="user", text=f"message {seq}", turn_id=f"t{seq}")
    reply = ChatMessage(role="assistant", text=f"reply {seq}", turn_id=f"t{seq}")
    turn = IndexedTurn(seq=seq, turn_id=f"t{seq}", text=message.text, ids=[])
    notes = Notes(version=seq)
    writes = [
        lambda: stores.gateway.create(sid, "acme"),
        lambda: stores.gateway.next_turn_if_open(sid, OPEN),
        lambda: stores.trimmer.add_user_and_read(sid, seq, message),
        lambda: stores.indexer.add_turn(sid, turn, range(1, 5)),
        lambda: stores.notes.put(sid, notes, 0),
        lambda: stores.conversation.before(sid, notes),
        lambda: record_verdict(stores.redis, sid, f"e{seq}", "confirmed", TTL),
        lambda: stores.trimmer.add_reply(sid, f"r{seq}", reply),
        lambda: stores.gateway.publish_delta(sid, "reply.delta", {"text": "re"}),
        lambda: stores.gateway.publish_outbound(sid, f"e{seq}", "reply", {"text": "hi"}),
        lambda: stores.gateway.publish_delta(sid, "reply.delta", {"text": "re"}),
    ]
    for write in writes:
        if lose_data:
            await stores.redis.flushall()
        await write()
    async with claim(stores.redis, "conversation", sid, f"e{seq}", TTL):
        pass


async def keys_without_ttl(redis: Redis, sid: str) -> list[str]:
    """The session's keys that would live for ever."""
    keys = [key async for key in redis.scan_iter(match=session_key(sid, "*"))]
    assert keys, "the writes made no keys at all"
    return [key for key in keys if await redis.ttl(key) < 0]


async def test_every_session_key_has_a_ttl_after_data_loss_between_writes(redis):
    stores, sid = Stores(redis), f"loss-{uuid.uuid4().hex[:12]}"
    await write_one_of_each(stores, sid, 1, lose_data=False)  # every store's mark is fresh
    assert await keys_without_ttl(redis, sid) == []
    for seq in (2, 3):
        await write_one_of_each(stores, sid, seq, lose_data=True)
        assert await keys_without_ttl(redis, sid) == []


async def test_every_session_key_has_a_ttl_when_data_is_lost_once_mid_session(redis):
    stores, sid = Stores(redis), f"loss-{uuid.uuid4().hex[:12]}"
    await write_one_of_each(stores, sid, 1, lose_data=False)
    await redis.flushall()
    for seq in (2, 3, 4, 5):  # the writes remake every key while the marks say fresh
        await write_one_of_each(stores, sid, seq, lose_data=False)
    assert await keys_without_ttl(redis, sid) == []
    assert await stores.indexer.turns(sid) == {  # the hash's mark is no turn
        n: IndexedTurn(seq=n, turn_id=f"t{n}", text=f"message {n}", ids=[]) for n in (2, 3, 4, 5)
    }
