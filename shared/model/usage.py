"""Per-session token usage, so a conversation's cost can be read back (e.g. by `eval`)."""

from __future__ import annotations

from redis.asyncio import Redis

from shared.model.port import ModelResult
from shared.redis import session_key


async def record_usage(redis: Redis, session_id: str, result: ModelResult) -> None:
    """Add one call's tokens to the session's running totals."""
    if not (result.prompt_tokens or result.completion_tokens):
        return
    key = session_key(session_id, "usage")
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hincrby(key, "prompt_tokens", result.prompt_tokens)
        pipe.hincrby(key, "completion_tokens", result.completion_tokens)
        await pipe.execute()
