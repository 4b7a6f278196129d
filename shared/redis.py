"""Redis client construction and key naming (`pw:{session}:...`, one hash slot per session)."""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis


def make_redis(url: str, max_connections: int = 64, wait_s: float = 10.0) -> Redis:
    """A decoded-string async client holding at most `max_connections`; callers close it.

    A burst beyond the bound waits up to `wait_s` for a free connection instead of opening
    more: Redis's connection count stays bounded however many requests arrive.
    """
    pool = BlockingConnectionPool.from_url(
        url,
        decode_responses=True,
        health_check_interval=30,
        max_connections=max_connections,
        timeout=wait_s,
    )
    return Redis.from_pool(pool)  # the client owns the pool: aclose() closes it


def session_key(session_id: str, *parts: str) -> str:
    """A key under the session's hash tag, so Redis Cluster keeps a session on one slot."""
    return ":".join((f"pw:{{{session_id}}}", *parts))
