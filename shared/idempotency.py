"""Claim an event id before side effects, so a redelivered message is processed once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redis.asyncio import Redis

from shared.redis import session_key

IN_FLIGHT_TTL_S = 60


class AlreadyProcessed(Exception):
    """The event was already processed (or is in flight) by this consumer."""


@asynccontextmanager
async def claim(
    redis: Redis, consumer: str, session_id: str, event_id: str, ttl_s: int
) -> AsyncIterator[None]:
    """Hold the claim while processing; keep it on success, release it on failure.

    The in-flight claim expires on its own, so a consumer that dies mid-message does not
    block the redelivery forever. Raises AlreadyProcessed for a duplicate.
    """
    key = session_key(session_id, "seen", consumer, event_id)
    if not await redis.set(key, "in-flight", nx=True, ex=IN_FLIGHT_TTL_S):
        raise AlreadyProcessed(event_id)
    try:
        yield
    except BaseException:
        await redis.delete(key)
        raise
    await redis.set(key, "done", ex=ttl_s)
