"""Redis client construction and key naming (`pw:{session}:...`, one hash slot per session)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from shared.settings import InfraSettings
from shared.ttl import Freshness, window_for


def make_redis(
    url: str,
    max_connections: int = 64,
    wait_s: float = 10.0,
    retries: int = 3,
    password: str | None = None,
) -> Redis:
    """A decoded-string async client holding at most `max_connections`; callers close it.

    `password` authenticates when the URL carries none (a password in the URL wins).

    A burst beyond the bound waits up to `wait_s` for a free connection instead of opening
    more: Redis's connection count stays bounded however many requests arrive.

    A command whose connection fails (`ConnectionError`: a pooled connection that Redis
    closed when it restarted, or a failover) is sent again on a fresh connection, up to
    `retries` times with jittered backoff, so a restart costs a reconnect, not a failed
    request. This adds no hazard the delivery path does not already handle: a command that
    reached Redis before its connection died may run twice, exactly as a handler redelivered
    after a lost reply runs twice, and every effect is guarded by a done-mark or a
    compare-and-set written in the same script or transaction (docs/reliability.md). Timeouts
    are not retried here: a slow Redis is the handler's budget's business.
    """
    pool = BlockingConnectionPool.from_url(
        url,
        password=password,
        decode_responses=True,
        health_check_interval=30,
        max_connections=max_connections,
        timeout=wait_s,
        retry=Retry(
            ExponentialWithJitterBackoff(base=0.05, cap=1.0),
            retries,
            supported_errors=(RedisConnectionError,),
        ),
    )
    return Redis.from_pool(pool)  # the client owns the pool: aclose() closes it


def redis_password(settings: InfraSettings) -> str | None:
    """The configured Valkey password in clear, for `make_redis` (None: none set)."""
    secret = settings.redis_password
    if secret is None:
        return None
    return secret.get_secret_value() or None  # an empty variable (compose's `:-`) is none


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


class RedisStore:
    """Records kept in Redis for `ttl_s` seconds; the service kit builds a `Deps` field of a
    subclass on the service's Redis with the session TTL (`shared.wiring`)."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s
        self.fresh = Freshness(window_for(ttl_s))  # when to refresh TTLs (shared/ttl.py)

    def ttl_due(self, session_id: str, group: str) -> int:
        """The TTL to set on the group's keys with this write, or 0 when still fresh."""
        return self.ttl_s if self.fresh.due(session_id, group) else 0

    def ttl_done(self, session_id: str, group: str, ttl: int) -> None:
        """Note the write that carried TTL `ttl` (0: none) has succeeded."""
        if ttl:
            self.fresh.refreshed(session_id, group)
