"""Gateway metrics: accepted turns, sessions created, and sessions by phase."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter as Tally

from prometheus_client import Counter, Gauge

from schemas.turn import Phase
from services.gateway.store import SessionStore
from shared.redis import session_key

log = logging.getLogger("planwire.gateway")

TURNS = Counter("planwire_turns_total", "User messages accepted by the gateway.")
SESSIONS_CREATED = Counter("planwire_sessions_created_total", "Sessions started.")
SESSIONS_BY_PHASE = Gauge(
    "planwire_sessions_by_phase", "Live sessions in each phase (sampled from Redis).", ["phase"]
)
REFUSED = Counter(
    "planwire_gateway_refused_total",
    "Requests turned away by a rate limit, quota or stream cap, by status (429, 503).",
    ["status"],
)
SAMPLE_EVERY_S = 15.0


async def count_phases(store: SessionStore, batch: int = 500) -> Tally:
    """Tally the phases of the recently active sessions (a bounded index, never a SCAN).

    The index holds the sessions active within the session TTL, at most RECENT_MAX of them,
    so one sample costs at most RECENT_MAX / batch MGETs whatever the keyspace holds.
    """
    tally: Tally = Tally()
    ids = await store.recent_sessions()
    for start in range(0, len(ids), batch):
        keys = [session_key(i, "phase") for i in ids[start : start + batch]]
        tally.update(v for v in await store.redis.mget(keys) if v)
    return tally


async def sample_phases_forever(store: SessionStore, every_s: float = SAMPLE_EVERY_S) -> None:
    """Keep the phase gauge fresh until cancelled; a failed sample is logged and retried."""
    while True:
        try:
            tally = await count_phases(store)
            for phase in Phase:
                SESSIONS_BY_PHASE.labels(phase.value).set(tally.get(phase.value, 0))
        except Exception:
            log.exception("could not sample session phases")
        await asyncio.sleep(every_s)


@contextlib.asynccontextmanager
async def phase_sampler(store: SessionStore, every_s: float):
    """Run the sampler for the lifetime of the app."""
    task = asyncio.create_task(sample_phases_forever(store, every_s))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
