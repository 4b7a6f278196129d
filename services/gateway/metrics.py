"""Gateway metrics: accepted turns, sessions created, and sessions by phase."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from prometheus_client import Counter, Gauge
from redis.asyncio import Redis

from schemas.turn import Phase
from state import session

log = logging.getLogger("planwire.gateway")

TURNS = Counter("planwire_turns_total", "User messages accepted by the gateway.")
SESSIONS_CREATED = Counter("planwire_sessions_created_total", "Sessions started.")
SESSIONS_BY_PHASE = Gauge(
    "planwire_sessions_by_phase", "Live sessions in each phase (sampled from Redis).", ["phase"]
)
SAMPLE_EVERY_S = 15.0


async def sample_phases_forever(redis: Redis, every_s: float = SAMPLE_EVERY_S) -> None:
    """Keep the phase gauge fresh until cancelled; a failed sample is logged and retried."""
    while True:
        try:
            tally = await session.count_phases(redis)
            for phase in Phase:
                SESSIONS_BY_PHASE.labels(phase.value).set(tally.get(phase.value, 0))
        except Exception:
            log.exception("could not sample session phases")
        await asyncio.sleep(every_s)


@contextlib.asynccontextmanager
async def phase_sampler(redis: Redis, every_s: float) -> AsyncIterator[None]:
    """Run the sampler for the lifetime of the app."""
    task = asyncio.create_task(sample_phases_forever(redis, every_s))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
