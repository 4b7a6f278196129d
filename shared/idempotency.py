"""Claim an event id while processing it, so a redelivered message's effect happens once.

  pw:{sid}:seen:<consumer>:<event_id>  "lease:<token>" while a worker processes the event
                                       (expires after the lease unless renewed), then "done"

A duplicate is skipped (`AlreadyProcessed`) only when the key says "done", which is written
after the handler returned, that is after its state change and its events. A key holding a
live worker's lease raises `HeldElsewhere`: the caller must retry later without committing
the offset (`shared.deadletter` does). The worker renews its lease while the handler runs,
so a slow model call never lets a second worker in; a SIGKILLed worker stops renewing and
its lease runs out, and the redelivered message is then processed. A crash after the state
change but before "done" reprocesses the message: handlers store their effects keyed by the
event (a compare-and-set that already happened, a result recorded with the change) and
publish events with ids derived from the cause, so reprocessing repeats no effect.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redis.asyncio import Redis

from shared.redis import session_key

LEASE_S = 15.0
DONE = "done"

# Extend ARGV[1]'s lease to ARGV[2] ms, only while it is still that lease.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
# Release lease ARGV[1] after a failure, only while it is still that lease.
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""


class AlreadyProcessed(Exception):
    """The event's effects are stored and its events published: skip it and commit."""


class HeldElsewhere(Exception):
    """A live worker holds the event's lease: retry later, do not commit the offset."""


def seen_key(consumer: str, session_id: str, event_id: str) -> str:
    """The claim key of one event for one consumer."""
    return session_key(session_id, "seen", consumer, event_id)


@asynccontextmanager
async def claim(
    redis: Redis,
    consumer: str,
    session_id: str,
    event_id: str,
    ttl_s: int,
    lease_s: float = LEASE_S,
) -> AsyncIterator[None]:
    """Hold a renewed lease while processing; mark "done" on success, release on failure."""
    key = seen_key(consumer, session_id, event_id)
    lease = f"lease:{uuid.uuid4().hex}"
    if not await redis.set(key, lease, nx=True, px=int(lease_s * 1000)):
        if await redis.get(key) == DONE:
            raise AlreadyProcessed(event_id)
        raise HeldElsewhere(event_id)
    stop = asyncio.Event()
    renewer = asyncio.create_task(_renew(redis, key, lease, lease_s, stop))
    try:
        yield
    except BaseException:
        await _stop(renewer, stop)
        with contextlib.suppress(Exception):  # unreleased, the lease simply runs out
            await redis.eval(_RELEASE, 1, key, lease)
        raise
    await _stop(renewer, stop)
    # "done" is true once any worker's handler returned, so it needs no check of whose lease
    # the key holds: one SET instead of a script's three commands (docs/performance.md §23).
    # A second worker that took over a lapsed lease finds "done" when it settles or fails.
    await redis.set(key, DONE, ex=ttl_s)


async def _renew(redis: Redis, key: str, lease: str, lease_s: float, stop: asyncio.Event) -> None:
    """Extend the lease every third of its length until `stop` is set.

    Stopped by the event, never cancelled: a Redis command cancelled mid-flight can leave
    its pooled connection unreturned, and a bounded pool then runs dry.
    """
    while True:
        try:
            await asyncio.wait_for(stop.wait(), lease_s / 3)
            return
        except TimeoutError:
            pass
        with contextlib.suppress(Exception):  # a missed renewal is retried next tick
            await redis.eval(_RENEW, 1, key, lease, int(lease_s * 1000))


async def _stop(task: asyncio.Task[None], stop: asyncio.Event) -> None:
    """Let the renewer finish its command in flight, then end."""
    stop.set()
    await task
