"""Failed logins, counted per client address, so a caller cannot guess keys at line speed.

A request that presents a credential (a bearer key or the cookie) which fails counts one
failure against its client address in a fixed window kept in Redis
(`pw:authfail:{client}:{window}`), shared by every replica. Once an address has
`limit` failures in the window, every credential it presents is refused with 429 and
`Retry-After` until the window ends, without being checked: a throttle that still checked
keys would let a right guess through. A request with no credential at all is neither
counted nor throttled (it is a plain 401).

Only the client address can be counted: a wrong key names no tenant, and counting per
tenant would let anyone lock a tenant out.
"""

from __future__ import annotations

import time

from redis.asyncio import Redis

from services.gateway.limits import window


class FailedLogins:
    """Failed credentials per client address and window, in Redis."""

    def __init__(self, redis: Redis, limit: int, window_s: int) -> None:
        self.redis, self.limit, self.window_s = redis, limit, window_s

    def key(self, client: str, index: int) -> str:
        """Where one address's failures in one window are counted."""
        return f"pw:authfail:{{{client}}}:{index}"

    async def wait_s(self, client: str) -> int | None:
        """Seconds until `client` may present a credential again, or None when it may now."""
        index, left = window(time.time(), self.window_s)
        count = await self.redis.get(self.key(client, index))
        return left if count is not None and int(count) >= self.limit else None

    async def failed(self, client: str) -> None:
        """Count one failed credential of `client` in the current window."""
        index, _ = window(time.time(), self.window_s)
        key = self.key(client, index)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, self.window_s + 1)  # the window's end, whenever it started
            await pipe.execute()
