"""What the conversation moves in Redis: the phase, into confirming."""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import Phase
from state import session


async def enter_confirming(redis: Redis, session_id: str) -> bool:
    """Move gathering to confirming; also true when a redelivery finds it already moved."""
    return await session.advance(redis, session_id, Phase.GATHERING, Phase.CONFIRMING)
