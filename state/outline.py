"""The outline, written by the indexer: the tree (versioned JSON) and each turn's user words.

  pw:{sid}:outline        string, `Outline` as JSON (its `version` counts the indexer's writes)
  pw:{sid}:outline:turns  hash turn number -> that turn's `IndexedTurn` JSON, and NEW_MARK

Both live as long as the session, so a change unit the trimmer dropped stays recallable (the
annotator's and the specialist's prompts read it back) for the session's lifetime and no longer.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from redis.asyncio import Redis

from schemas.outline import IndexedTurn, Outline
from shared.redis import RedisStore, session_key, text_map, text_or_none

WRITERS = {"OutlineWriter": {"indexer"}}

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


# A field every turns hash gets with its TTL: its absence says the hash was made without one
# (new, or made anew after Valkey lost its data), at the cost of no command a turn.
NEW_MARK = "~ttl"


def _keys(session_id: str) -> tuple[str, str]:
    """The tree and the kept turns."""
    return session_key(session_id, "outline"), session_key(session_id, "outline", "turns")


def decode_tree(raw: str | bytes | None) -> Outline:
    """The stored tree, or an empty one at version 0."""
    text = text_or_none(raw)
    return Outline.model_validate_json(text) if text else Outline()


def decode_turns(
    raw: Mapping[Any, Any], only: Collection[int] | None = None
) -> dict[int, IndexedTurn]:
    """The stored turns hash by turn number (only the numbers in `only`, when given)."""
    found = text_map(raw)
    found.pop(NEW_MARK, None)
    if only is not None:
        found = {str(n): found[str(n)] for n in only if str(n) in found}
    return {int(seq): IndexedTurn.model_validate_json(v) for seq, v in found.items()}


async def tree(redis: Redis, session_id: str) -> Outline:
    """The tree, or an empty one at version 0."""
    return decode_tree(await redis.get(_keys(session_id)[0]))


async def turns(redis: Redis, session_id: str) -> dict[int, IndexedTurn]:
    """Every kept turn by its number."""
    return decode_turns(await redis.hgetall(_keys(session_id)[1]))


async def turn(redis: Redis, session_id: str, seq: int) -> IndexedTurn | None:
    """One kept turn by its number, if the indexer has it."""
    raw = text_or_none(await redis.hget(_keys(session_id)[1], str(seq)))
    return IndexedTurn.model_validate_json(raw) if raw else None


async def read(redis: Redis, session_id: str) -> tuple[Outline, dict[int, IndexedTurn]]:
    """The tree and the turns it was built from, read together: where recall looks."""
    tree, raw_turns = await read_raw(redis, session_id)
    return tree, decode_turns(raw_turns)


async def read_raw(redis: Redis, session_id: str) -> tuple[Outline, dict[str, str]]:
    """The tree and every kept turn's JSON by number, read together (decode only the turns
    you need: `decode_turns`)."""
    tree_key, turns_key = _keys(session_id)
    # Not a transaction: turns are only ever added, so a tree read beside them is consistent
    # enough (the CAS on the tree's version catches a race), and MULTI/EXEC are two commands.
    async with redis.pipeline(transaction=False) as pipe:
        pipe.get(tree_key)
        pipe.hgetall(turns_key)
        raw_tree, raw_turns = await pipe.execute()
    return decode_tree(raw_tree), text_map(raw_turns)


class OutlineWriter(RedisStore):
    """Keeps one session's turns and compare-and-sets its tree."""

    async def add_turn(self, session_id: str, turn: IndexedTurn, batch: Collection[int]) -> bool:
        """Keep a turn's words once; True when every turn of `batch` (its numbers) is now
        kept, so the tree may have a batch to place. One round trip, no tree read."""
        turns_key = _keys(session_id)[1]
        ttl = self.ttl_due(session_id, "outline")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hsetnx(turns_key, str(turn.seq), turn.model_dump_json())
            if ttl:  # once per window (shared/ttl.py); the tree is a SET with EX of its own
                pipe.expire(turns_key, ttl)
            pipe.hmget(turns_key, [NEW_MARK, *(str(n) for n in batch)])
            *_, (mark, *present) = await pipe.execute()
        if mark is None:  # the hash was made just now (or anew): it gets its TTL, fresh or not
            await self._mark_made(turns_key)
        self.ttl_done(session_id, "outline", ttl)
        return all(value is not None for value in present)

    async def _mark_made(self, turns_key: str) -> None:
        """Give a turns hash made just now its TTL, and the mark that says it has one."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(turns_key, NEW_MARK, "1")
            pipe.expire(turns_key, self.ttl_s)
            await pipe.execute()

    async def read_raw(self, session_id: str) -> tuple[Outline, Mapping[str, str]]:
        """The tree and every kept turn's JSON by number, read together."""
        return await read_raw(self.redis, session_id)

    async def get(self, session_id: str) -> Outline:
        """The tree, or an empty one at version 0."""
        return await tree(self.redis, session_id)

    async def turns(self, session_id: str) -> dict[int, IndexedTurn]:
        """Every kept turn by its number."""
        return await turns(self.redis, session_id)

    async def put(self, session_id: str, outline: Outline, expected_version: int) -> bool:
        """Store the tree if nobody wrote since `expected_version`; False on a lost race."""
        args = (expected_version, outline.model_dump_json(), self.ttl_s)
        return bool(await self.redis.eval(_PUT_IF_VERSION, 1, _keys(session_id)[0], *args))
