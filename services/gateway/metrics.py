"""Gateway metrics: accepted turns, sessions created, and sessions by phase."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from prometheus_client import Counter, Gauge, Histogram

from schemas.turn import Phase
from services.gateway.store import SessionStore
from shared.tasks import alongside
from shared.tracing import seconds_since_accepted
from state import session

log = logging.getLogger("planwire.gateway")

TURNS = Counter("planwire_turns_total", "User messages accepted by the gateway.")
SESSIONS_CREATED = Counter("planwire_sessions_created_total", "Sessions started.")
SESSIONS_BY_PHASE = Gauge(
    "planwire_sessions_by_phase", "Live sessions in each phase (sampled from Redis).", ["phase"]
)
REFUSED = Counter(
    "planwire_gateway_refused_total",
    "Requests turned away for now (a rate limit, quota or stream cap, or Redis or the broker "
    "unreachable), by status (429, 503).",
    ["status"],
)
SAMPLE_EVERY_S = 15.0
# End to end, gateway to gateway, timed against the accepting request's baggage stamp
# (shared/tracing.py): every hop and every wait on a model is inside.
TURN_SECONDS = Histogram(
    "planwire_turn_seconds",
    "From a user's message accepted to planwire's reply to it streamed.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120),
)
WORKFLOW_SECONDS = Histogram(
    "planwire_workflow_seconds",
    "From the confirming message accepted to the saved workflow streamed.",
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200),
)
TIMED = {"reply": TURN_SECONDS, "workflow_completed": WORKFLOW_SECONDS}


def observe_outbound(event_type: str) -> None:
    """Time a reply or a saved workflow against the message that caused it, when known."""
    histogram, elapsed = TIMED.get(event_type), seconds_since_accepted()
    if histogram is not None and elapsed is not None:
        histogram.observe(elapsed)


async def sample_phases_forever(store: SessionStore, every_s: float = SAMPLE_EVERY_S) -> None:
    """Keep the phase gauge fresh until cancelled; a failed sample is logged and retried."""
    while True:
        try:
            # The recently active sessions (a bounded index, never a SCAN): one sample
            # costs at most RECENT_MAX / 500 MGETs whatever the keyspace holds.
            tally = await session.count_phases(store.redis, await store.recent_sessions())
            for phase in Phase:
                SESSIONS_BY_PHASE.labels(phase.value).set(tally.get(phase.value, 0))
        except Exception:
            log.exception("could not sample session phases")
        await asyncio.sleep(every_s)


@contextlib.asynccontextmanager
async def phase_sampler(store: SessionStore, every_s: float) -> AsyncIterator[None]:
    """Run the sampler for the lifetime of the app."""
    async with alongside(sample_phases_forever(store, every_s)):
        yield
