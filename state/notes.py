"""The notes, written by the annotator: one versioned JSON document per session.

pw:{sid}:notes  string, `Notes` as JSON (its `version` counts the annotator's writes)
"""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.turn import Notes
from shared.redis import RedisStore, session_key

WRITERS = {"NotesWriter": {"annotator"}}

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


def _key(session_id: str) -> str:
    return session_key(session_id, "notes")


async def read(redis: Redis, session_id: str) -> Notes:
    """The current notes, or empty notes at version 0."""
    raw = await redis.get(_key(session_id))
    return Notes.model_validate_json(raw) if raw else Notes()


class NotesWriter(RedisStore):
    """Compare-and-sets one session's notes."""

    async def get(self, session_id: str) -> Notes:
        """The current notes, or empty notes at version 0."""
        return await read(self.redis, session_id)

    async def put(self, session_id: str, notes: Notes, expected_version: int) -> bool:
        """Store `notes` if nobody wrote since `expected_version`; False on a lost race."""
        args = (expected_version, notes.model_dump_json(), self.ttl_s)
        return bool(await self.redis.eval(_PUT_IF_VERSION, 1, _key(session_id), *args))
