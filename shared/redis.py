"""Redis client construction and key naming (`pw:{session}:...`, one hash slot per session)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from redis.asyncio import Redis


def make_redis(url: str) -> Redis:
    """A decoded-string async client; callers own closing it."""
    return Redis.from_url(url, decode_responses=True, health_check_interval=30)


def session_key(session_id: str, *parts: str) -> str:
    """A key under the session's hash tag, so Redis Cluster keeps a session on one slot."""
    return ":".join((f"pw:{{{session_id}}}", *parts))


# The client decodes replies (`decode_responses=True`), but redis-py types every reply as
# `bytes | str` because it cannot see that flag; these narrow a reply to what it really is.
def text(reply: bytes | str) -> str:
    """A reply as text."""
    return reply.decode() if isinstance(reply, bytes) else reply


def text_or_none(reply: bytes | str | None) -> str | None:
    """A reply that may be absent (a missing key), as text."""
    return None if reply is None else text(reply)


def text_map(
    reply: Mapping[bytes, bytes] | Mapping[str, str] | Mapping[Any, Any],
) -> dict[str, str]:
    """A hash reply (HGETALL) as text to text."""
    return {text(k): text(v) for k, v in reply.items()}


def text_list(reply: Iterable[object]) -> list[str]:
    """A list reply (ZRANGE without scores, LRANGE, MGET without gaps) as text."""
    items = []
    for item in reply:
        if not isinstance(item, bytes | str):
            raise TypeError(f"expected a plain list reply, got an item {item!r}")
        items.append(text(item))
    return items
