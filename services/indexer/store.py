"""The outline, owned by the indexer: the tree (versioned JSON) and each turn's user words.

`pw:{session}:outline` holds the tree; `pw:{session}:outline:turns` a hash of turn number to
the turn (`IndexedTurn` JSON). Both live as long as the session, so a change unit the trimmer
dropped stays recallable for the session's lifetime and no longer.
"""

from __future__ import annotations

from redis.asyncio import Redis

from schemas.outline import IndexedTurn, Outline
from shared.redis import session_key

# Write ARGV[2] only if the stored version is ARGV[1] (absent counts as 0): a batch is
# placed once even when two deliveries of its last turn race.
_PUT_IF_VERSION = """
local raw = redis.call('GET', KEYS[1])
local current = 0
if raw then current = cjson.decode(raw)['version'] end
if current ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""


class OutlineStore:
    """Reads and writes one session's outline."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    async def add_turn(self, session_id: str, turn: IndexedTurn) -> bool:
        """Keep a turn's words once (a redelivery changes nothing); False when already kept."""
        key = session_key(session_id, "outline", "turns")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hsetnx(key, str(turn.seq), turn.model_dump_json())
            pipe.expire(key, self.ttl_s)
            added, _ = await pipe.execute()
        return bool(added)

    async def turns(self, session_id: str) -> dict[int, IndexedTurn]:
        """Every kept turn by its number."""
        raw = await self.redis.hgetall(session_key(session_id, "outline", "turns"))
        return {int(seq): IndexedTurn.model_validate_json(v) for seq, v in raw.items()}

    async def get(self, session_id: str) -> Outline:
        """The tree, or an empty one at version 0."""
        raw = await self.redis.get(session_key(session_id, "outline"))
        return Outline.model_validate_json(raw) if raw else Outline()

    async def put(self, session_id: str, outline: Outline, expected_version: int) -> bool:
        """Store the tree if nobody wrote since `expected_version`; False on a lost race."""
        key = session_key(session_id, "outline")
        return bool(
            await self.redis.eval(
                _PUT_IF_VERSION, 1, key, expected_version, outline.model_dump_json(), self.ttl_s
            )
        )
