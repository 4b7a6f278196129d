"""Atomic compare-and-set on a Redis string, for state machines owned by code."""

from __future__ import annotations

from redis.asyncio import Redis

# Sets KEYS[1] to ARGV[1] only when its current value is one of ARGV[2..]; returns 1 if set.
_CAS = """
local current = redis.call('GET', KEYS[1])
for i = 2, #ARGV do
  if current == ARGV[i] then
    redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
    return 1
  end
end
return 0
"""


async def compare_and_set(redis: Redis, key: str, new: str, expected: list[str]) -> bool:
    """Move `key` to `new` if it currently holds one of `expected`; False when it does not."""
    return bool(await redis.eval(_CAS, 1, key, new, *expected))
