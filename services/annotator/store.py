"""The notes, owned by the annotator: one versioned JSON document per session."""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import Notes
from shared.redis import session_key

# Write ARGV[2] only if the stored version is ARGV[1] (absent counts as 0): a compare-and-set
# that stops a concurrent or duplicate update from overwriting a newer one.
_PUT_IF_VERSION = """
local raw = redis.call('GET', KEYS[1])
local current = 0
if raw then current = cjson.decode(raw)['version'] end
if current ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""


class NotesStore:
    """Reads and compare-and-sets one session's notes."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    async def get(self, session_id: str) -> Notes:
        """The current notes, or empty notes at version 0."""
        raw = await self.redis.get(session_key(session_id, "notes"))
        return Notes.model_validate_json(raw) if raw else Notes()

    async def put(self, session_id: str, notes: Notes, expected_version: int) -> bool:
        """Store `notes` if nobody wrote since `expected_version`; False on a lost race."""
        key = session_key(session_id, "notes")
        return bool(
            await self.redis.eval(
                _PUT_IF_VERSION, 1, key, expected_version, notes.model_dump_json(), self.ttl_s
            )
        )
