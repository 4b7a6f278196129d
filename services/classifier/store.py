"""What the classifier reads and moves in Redis: it reads the notes, moves the phase."""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import Notes, Phase
from state import notes, session


async def read_notes(redis: Redis, session_id: str) -> Notes:
    """The annotator's current notes (read-only here)."""
    return await notes.read(redis, session_id)


NEXT_PHASE = {"confirmed": Phase.PLANNING, "amend": Phase.GATHERING}


async def verdict_of(redis: Redis, session_id: str, event_id: str) -> str | None:
    """The verdict already recorded for this reply (a redelivery after a crash), if any."""
    return await session.decided(redis, session_id, "classifier", event_id)


async def record_verdict(
    redis: Redis, session_id: str, event_id: str, verdict: str, ttl_s: int
) -> str:
    """Record the verdict and leave confirming accordingly, atomically; the verdict that stands.

    confirmed -> planning, amend -> gathering, unclear stays. A redelivered reply keeps the
    first run's verdict, so a second model call can never contradict a phase already moved.
    """
    move = (Phase.CONFIRMING, NEXT_PHASE[verdict]) if verdict in NEXT_PHASE else None
    return await session.decide_once(
        redis, session_id, "classifier", event_id, verdict, move, ttl_s
    )
