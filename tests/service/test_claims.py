"""The event claim on a real Valkey: a lease while processing, "done" only after success."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from shared.idempotency import AlreadyProcessed, HeldElsewhere, claim, seen_key


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


async def test_a_live_workers_claim_is_retried_later_never_skipped(redis):
    async with claim(redis, "svc", "session-a1", "e1", ttl_s=60, lease_s=3):
        with pytest.raises(HeldElsewhere):  # retriable: the offset must not be committed
            async with claim(redis, "svc", "session-a1", "e1", ttl_s=60, lease_s=3):
                pass
    with pytest.raises(AlreadyProcessed):  # done now: the duplicate is skipped
        async with claim(redis, "svc", "session-a1", "e1", ttl_s=60, lease_s=3):
            pass


async def test_the_lease_is_renewed_while_a_slow_handler_runs(redis):
    async with claim(redis, "svc", "session-a2", "e2", ttl_s=60, lease_s=0.6):
        await asyncio.sleep(1.5)  # well past the lease: a renewal keeps it
        assert (await redis.get(seen_key("svc", "session-a2", "e2"))).startswith("lease:")
    assert await redis.get(seen_key("svc", "session-a2", "e2")) == "done"


async def test_a_dead_workers_lease_runs_out_and_the_redelivery_processes_it(redis):
    key = seen_key("svc", "session-a3", "e3")
    await redis.set(key, "lease:of-a-killed-worker", px=400)  # what a SIGKILL leaves behind
    with pytest.raises(HeldElsewhere):
        async with claim(redis, "svc", "session-a3", "e3", ttl_s=60):
            pass
    await asyncio.sleep(0.5)
    ran = False
    async with claim(redis, "svc", "session-a3", "e3", ttl_s=60):
        ran = True
    assert ran and await redis.get(key) == "done"


async def test_a_failed_handler_releases_its_claim_for_the_retry(redis):
    with pytest.raises(ConnectionError):
        async with claim(redis, "svc", "session-a4", "e4", ttl_s=60):
            raise ConnectionError("broker blip")
    assert await redis.get(seen_key("svc", "session-a4", "e4")) is None


async def test_ending_claims_never_strands_a_pooled_connection(redis_url):
    # Renewals every 2 ms race the handlers' ends: a renewal cut off mid-command once kept
    # its connection out of the pool, and a small pool then ran dry (a handler hung).
    from shared.redis import make_redis

    pooled = make_redis(redis_url, max_connections=4, wait_s=2.0)

    async def one(i: int) -> None:
        async with claim(pooled, "svc", "session-a5", f"p{i}", ttl_s=60, lease_s=0.006):
            await asyncio.sleep((i % 7) / 1000)

    try:
        async with asyncio.timeout(60):
            for batch in range(6):
                await asyncio.gather(*(one(batch * 40 + i) for i in range(40)))
    finally:
        await pooled.aclose()
