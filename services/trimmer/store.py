"""The transcript, owned by the trimmer: an append-only Redis list, idempotent per message."""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import ChatMessage
from shared.redis import session_key

# Append ARGV[2] to the list only if message id ARGV[1] was never appended; returns the length.
_APPEND_ONCE = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return -1 end
redis.call('EXPIRE', KEYS[2], ARGV[3])
local n = redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return n
"""


class TranscriptStore:
    """Reads and appends one session's transcript."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    async def append(self, session_id: str, message_id: str, message: ChatMessage) -> bool:
        """Append once per message id; False when it was already there (a redelivery)."""
        keys = (session_key(session_id, "transcript"), session_key(session_id, "transcript", "ids"))
        result = await self.redis.eval(_APPEND_ONCE, 2, *keys, message_id, message.model_dump_json(), self.ttl_s)
        return int(result) >= 0

    async def read(self, session_id: str) -> list[ChatMessage]:
        """The whole transcript, oldest first."""
        raw = await self.redis.lrange(session_key(session_id, "transcript"), 0, -1)
        return [ChatMessage.model_validate_json(item) for item in raw]

    async def phase(self, session_id: str) -> str:
        """The session's phase as the gateway and the phase owners left it."""
        return await self.redis.get(session_key(session_id, "phase")) or "gathering"
