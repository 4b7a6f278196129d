"""Redis client construction and key naming (`pw:{session}:...`, one hash slot per session)."""

from __future__ import annotations

from redis.asyncio import Redis


def make_redis(url: str) -> Redis:
    """A decoded-string async client; callers own closing it."""
    return Redis.from_url(url, decode_responses=True, health_check_interval=30)


def session_key(session_id: str, *parts: str) -> str:
    """A key under the session's hash tag, so Redis Cluster keeps a session on one slot."""
    return ":".join((f"pw:{{{session_id}}}", *parts))
