"""What the classifier reads and moves in Redis: it reads the notes, moves the phase."""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import Notes, Phase
from state import notes, session


async def read_notes(redis: Redis, session_id: str) -> Notes:
    """The annotator's current notes (read-only here)."""
    return await notes.read(redis, session_id)


async def leave_confirming(redis: Redis, session_id: str, to: Phase) -> bool:
    """confirming -> planning (confirmed) or gathering (a change asked for)."""
    return await session.advance(redis, session_id, Phase.CONFIRMING, to)
