"""The session record: its tenant and its phase, the state machine code owns.

  pw:{sid}:tenant  string, the tenant that created the session (the gateway's auth reads it)
  pw:{sid}:phase   string, a `Phase`; absent reads as gathering

The phase moves only through `advance`, and only along a transition listed in
`TRANSITIONS`, each with the one service that makes it. `open_session` is the only other
writer: the gateway creates the session in the gathering phase.
"""

from __future__ import annotations

from collections import Counter as Tally

from redis.asyncio import Redis

from schemas.turn import Phase
from shared.cas import compare_and_set
from shared.redis import session_key, text, text_or_none

# Every legal phase transition and the service that makes it.
TRANSITIONS: dict[tuple[Phase, Phase], str] = {
    (Phase.GATHERING, Phase.CONFIRMING): "conversation",  # the notes are complete
    (Phase.CONFIRMING, Phase.PLANNING): "classifier",  # the user confirmed the summary
    (Phase.CONFIRMING, Phase.GATHERING): "classifier",  # the user asked for a change
    (Phase.PLANNING, Phase.EXECUTING): "planner",  # the plan is logged
    (Phase.EXECUTING, Phase.COMPLETED): "dispatcher",  # the last step finished
    (Phase.EXECUTING, Phase.FAILED): "dispatcher",  # a step ran out of attempts
}

# What writes this record, and the services that may import it.
WRITERS = {
    "open_session": {"gateway"},
    "advance": set(TRANSITIONS.values()),
}


class IllegalTransition(RuntimeError):
    """A phase change the state machine does not have: a bug in the caller, not bad input."""


def _phase_key(session_id: str) -> str:
    return session_key(session_id, "phase")


def phase_key(session_id: str) -> str:
    """The phase's key, for a reader that must read it inside its own script (read-only)."""
    return _phase_key(session_id)


def _tenant_key(session_id: str) -> str:
    return session_key(session_id, "tenant")


async def open_session(redis: Redis, session_id: str, tenant: str, ttl_s: int) -> None:
    """A new session of `tenant`, in the gathering phase."""
    async with redis.pipeline(transaction=True) as pipe:
        pipe.set(_tenant_key(session_id), tenant, ex=ttl_s)
        pipe.set(_phase_key(session_id), Phase.GATHERING, ex=ttl_s)
        await pipe.execute()


async def advance(redis: Redis, session_id: str, from_: Phase, to: Phase) -> bool:
    """Move the phase `from_` -> `to`; True when it moved now or had already moved there.

    False when the session is in any other phase (a stale or out-of-order event). A pair
    that is not in `TRANSITIONS` raises IllegalTransition before anything is written.
    """
    if (from_, to) not in TRANSITIONS:
        raise IllegalTransition(f"no phase transition {from_.value} -> {to.value}")
    return await compare_and_set(redis, _phase_key(session_id), to, [from_]) or (
        await phase(redis, session_id) == to
    )


async def phase(redis: Redis, session_id: str) -> Phase:
    """The session's current phase (gathering when it has none yet)."""
    return Phase(text_or_none(await redis.get(_phase_key(session_id))) or Phase.GATHERING)


async def tenant(redis: Redis, session_id: str) -> str | None:
    """The tenant that owns the session, or None if there is no such session."""
    return text_or_none(await redis.get(_tenant_key(session_id)))


async def count_phases(redis: Redis) -> Tally[str]:
    """Tally every session's phase. A SCAN is O(sessions): fine for a periodic sample."""
    tally: Tally[str] = Tally()
    batch: list[str] = []
    async for key in redis.scan_iter(match="pw:{*}:phase", count=1000):
        batch.append(text(key))
        if len(batch) >= 500:
            tally.update(text(v) for v in await redis.mget(batch) if v)
            batch = []
    if batch:
        tally.update(text(v) for v in await redis.mget(batch) if v)
    return tally
