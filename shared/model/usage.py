"""Per-session token usage, recorded by the model port itself so no role can forget it.

The handler binds the session it works on (`shared.scope.bound_session`); every structured
call made under it adds its tokens to `pw:{session}:usage`, in total and per role. The
gateway reads the hash back (`usage_view`), and `planwire eval` reports it.
"""

from __future__ import annotations

from typing import Any, Protocol

from redis.asyncio import Redis

from shared.model.factory import ModelChoice, build_model
from shared.model.port import Call, ModelPort, ModelResult, PortWrapper
from shared.redis import session_key, text_map
from shared.scope import current_session

TOTALS = ("prompt_tokens", "completion_tokens")
DEFAULT_TTL_S = 30 * 24 * 3600  # a session's lifetime, as `InfraSettings.session_ttl_s`
ROLE_PREFIX = "role:"  # per-role fields: `role:<role>:prompt_tokens`


async def record_usage(
    redis: Redis, session_id: str, role: str, result: ModelResult, ttl_s: int
) -> None:
    """Add one call's tokens to the session's running totals and to its role's."""
    if not (result.prompt_tokens or result.completion_tokens):
        return
    key = session_key(session_id, "usage")
    counts = dict(zip(TOTALS, (result.prompt_tokens, result.completion_tokens), strict=False))
    async with redis.pipeline(transaction=True) as pipe:
        for field, tokens in counts.items():
            pipe.hincrby(key, field, tokens)
            pipe.hincrby(key, f"{ROLE_PREFIX}{role}:{field}", tokens)
        pipe.expire(key, ttl_s)  # lives as long as the session it counts
        await pipe.execute()


async def read_usage(redis: Redis, session_id: str) -> dict[str, Any]:
    """The session's usage as the API returns it (`usage_view`)."""
    return usage_view(text_map(await redis.hgetall(session_key(session_id, "usage"))))


def usage_view(fields: dict[str, str]) -> dict[str, Any]:
    """The usage hash as the API returns it: totals, plus `by_role` once any role is recorded."""
    view: dict[str, Any] = {k: int(v) for k, v in fields.items() if not k.startswith(ROLE_PREFIX)}
    for field, value in fields.items():
        if field.startswith(ROLE_PREFIX):
            role, _, name = field.removeprefix(ROLE_PREFIX).rpartition(":")
            view.setdefault("by_role", {}).setdefault(role, {})[name] = int(value)
    return view


class UsageRecordingModel(PortWrapper):
    """A ModelPort that charges every call's tokens to the bound session (built once per service)."""

    def __init__(self, inner: ModelPort, redis: Redis, ttl_s: int = DEFAULT_TTL_S) -> None:
        super().__init__(inner)
        self.redis, self.ttl_s = redis, ttl_s

    async def answer(self, call: Call) -> ModelResult:
        """The inner port's answer; its tokens are recorded when a session is bound."""
        result = await call.to(self.inner)
        session_id = current_session()
        if session_id is not None:
            await record_usage(self.redis, session_id, call.role, result, self.ttl_s)
        return result


class UsageSettings(ModelChoice, Protocol):
    """A service's settings: the model to build, and how long a session's records live."""

    @property
    def session_ttl_s(self) -> int: ...


def recorded_model(settings: UsageSettings, redis: Redis) -> UsageRecordingModel:
    """The service's model port from its settings, charging every call to the bound session."""
    return UsageRecordingModel(build_model(settings), redis, settings.session_ttl_s)
