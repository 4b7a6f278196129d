"""The gateway's shared outbox reader on a real Valkey: a stream opened while the reader is
blocked is read at once, not after the block runs out, and a cursor Redis would refuse never
joins the read every stream shares."""

from __future__ import annotations

import asyncio

import pytest

from services.gateway.outbox import OutboxHub
from shared.redis import make_redis

BLOCK_MS = 5_000  # far longer than a reply may wait: only an unblocked read passes


async def test_a_stream_opened_during_a_blocked_read_is_woken_by_its_first_entry(redis_url):
    redis, reader = make_redis(redis_url), make_redis(redis_url, 1)
    hub = OutboxHub(redis, BLOCK_MS, reader=reader)
    try:
        async with hub.running(), hub.watch("outbox:old", "0-0"):
            for _ in range(100):  # the reader is waiting on the old stream alone
                if hub.blocked:
                    break
                await asyncio.sleep(0.01)
            assert hub.blocked
            async with hub.watch("outbox:new", "0-0") as watch:
                await redis.xadd("outbox:new", {"type": "reply"})
                assert await watch.wait(2.0), "the new stream waited for the old read to time out"
    finally:
        await reader.aclose()
        await redis.aclose()


async def test_entries_of_every_watched_stream_wake_their_watchers(redis_url):
    redis, reader = make_redis(redis_url), make_redis(redis_url, 1)
    hub = OutboxHub(redis, 200, reader=reader)
    try:
        async with (
            hub.running(),
            hub.watch("outbox:a", "0-0") as a,
            hub.watch("outbox:b", "0-0") as b,
        ):
            await redis.xadd("outbox:b", {"type": "plan"})
            assert await b.wait(2.0)
            assert not a.woken.is_set()
            await redis.xadd("outbox:a", {"type": "reply"})
            assert await a.wait(2.0)
    finally:
        await reader.aclose()
        await redis.aclose()


async def test_a_cursor_redis_would_refuse_never_joins_the_shared_read(redis_url):
    redis, reader = make_redis(redis_url), make_redis(redis_url, 1)
    hub = OutboxHub(redis, 200, reader=reader)
    try:
        async with hub.running(), hub.watch("outbox:ok", "0-0") as ok:
            for bad in ("99999999999999999999-0", "0-99999999999999999999", "1-x"):
                with pytest.raises(ValueError, match="not a stream id"):
                    async with hub.watch("outbox:attacker", bad):
                        pass
            assert "outbox:attacker" not in hub.cursors
            # Had the bad cursor joined, this read would fail and the hub would pause.
            for n in range(3):
                ok.woken.clear()
                await redis.xadd("outbox:ok", {"type": "reply", "n": str(n)})
                assert await ok.wait(2.0), f"entry {n} did not wake its stream"
    finally:
        await reader.aclose()
        await redis.aclose()
