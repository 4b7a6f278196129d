"""What the conversation keeps in Redis: the phase move into confirming, and the notes it
last replied to, so the next reply can say what a message changed.

  pw:{sid}:conversation:notes  string, JSON {"previous": Notes, "current": Notes}
"""

from __future__ import annotations

import json

from redis.asyncio import Redis

from schemas.turn import Notes, Phase
from shared.redis import RedisStore, session_key, text_or_none
from state import session


async def enter_confirming(redis: Redis, session_id: str) -> bool:
    """Move gathering to confirming; also true when a redelivery finds it already moved."""
    return await session.advance(redis, session_id, Phase.GATHERING, Phase.CONFIRMING)


def _key(session_id: str) -> str:
    return session_key(session_id, "conversation", "notes")


class RepliedNotes(RedisStore):
    """The notes before and after the turn the conversation last replied to."""

    async def before(self, session_id: str, notes: Notes) -> Notes:
        """The notes as they stood before `notes`, and remember `notes` for the next turn.

        A redelivered turn (same version as the one remembered) gets the same answer, and
        a session the store forgot starts from empty notes (every app reads as added).
        """
        raw = text_or_none(await self.redis.get(_key(session_id)))
        kept = json.loads(raw) if raw else {}
        current = Notes.model_validate(kept["current"]) if kept else Notes()
        if kept and current.version == notes.version:
            return Notes.model_validate(kept["previous"])
        record = {"previous": current.model_dump(), "current": notes.model_dump()}
        await self.redis.set(_key(session_id), json.dumps(record), ex=self.ttl_s)
        return current
