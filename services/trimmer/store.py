"""The transcript, owned by the trimmer: a Redis sorted set ordered by turn, idempotent.

Replies arrive on their own topic, so one can be consumed after the next user message;
ordering by (turn position, user before assistant) keeps change units right regardless.
"""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import ChatMessage
from shared.redis import session_key

# KEYS: transcript zset, seen-ids set, turn->position hash. ARGV: message id, message JSON,
# score, ttl, turn id (user messages record their turn's position). Returns 0 for a repeat.
_ADD_ONCE = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1] .. '|' .. ARGV[2])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], ARGV[3]) end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[4]) end
return 1
"""
# A reply goes right after the user message of its turn (ARGV[5]), else after the last entry;
# then as _ADD_ONCE without recording a turn. One round trip instead of two or three.
_ADD_REPLY_ONCE = """
local position = redis.call('HGET', KEYS[3], ARGV[5])
local score
if position then
  score = tonumber(position) + 1
else
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  score = (last[2] and tonumber(last[2]) or 0) + 1
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], score, ARGV[1] .. '|' .. ARGV[2])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[4]) end
return 1
"""


class TranscriptStore:
    """Reads and appends one session's transcript."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    def _keys(self, session_id: str) -> tuple[str, str, str]:
        """The transcript, its message ids, and each turn's position."""
        return (
            session_key(session_id, "transcript"),
            session_key(session_id, "transcript", "ids"),
            session_key(session_id, "transcript", "turns"),
        )

    async def add_user_and_read(
        self, session_id: str, turn_seq: int, message: ChatMessage
    ) -> tuple[list[ChatMessage], str]:
        """Record the user's message of turn `turn_seq` once (a redelivery adds nothing), then
        read the transcript and the session's phase: one round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.eval(*self._add_user_args(session_id, turn_seq, message))
            pipe.zrange(self._keys(session_id)[0], 0, -1)
            pipe.get(session_key(session_id, "phase"))
            _, raw, phase = await pipe.execute()
        return self._messages(raw), phase or "gathering"

    async def add_reply(self, session_id: str, reply_id: str, message: ChatMessage) -> bool:
        """Record an assistant reply right after the user message of its turn."""
        args = (f"assistant:{reply_id}", message.model_dump_json(), 0, self.ttl_s, message.turn_id)
        return bool(await self.redis.eval(_ADD_REPLY_ONCE, 3, *self._keys(session_id), *args))

    @staticmethod
    def _messages(raw: list[str]) -> list[ChatMessage]:
        return [ChatMessage.model_validate_json(item.split("|", 1)[1]) for item in raw]

    def _add_user_args(self, session_id: str, turn_seq: int, message: ChatMessage) -> tuple:
        args = (f"user:{message.turn_id}", message.model_dump_json(), 2 * turn_seq, self.ttl_s)
        return (_ADD_ONCE, 3, *self._keys(session_id), *args, message.turn_id)
