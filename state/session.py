"""The session record: its tenant and its phase, the state machine code owns.

  pw:{sid}:tenant  string, the tenant that created the session (the gateway's auth reads it)
  pw:{sid}:phase   string, a `Phase`; absent reads as gathering

The phase moves only through `advance`, and only along a transition listed in
`TRANSITIONS`, each with the one service that makes it. `open_session` is the only other
writer: the gateway creates the session in the gathering phase (and `refresh`es its TTL on
activity).
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Sequence

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

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
    "refresh": {"gateway"},
    "advance": set(TRANSITIONS.values()),
    "decide_once": set(TRANSITIONS.values()),
}

# Record decision ARGV[1] at KEYS[2] (kept ARGV[2] s) and, in the same step, move the phase
# KEYS[1] from ARGV[4] to ARGV[3] (none when ARGV[3] is ""). A decision already recorded wins
# and nothing moves: a redelivered message gets the first run's answer. Returns the decision.
_DECIDE_ONCE = """
local recorded = redis.call('GET', KEYS[2])
if recorded then return recorded end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
local phase = redis.call('GET', KEYS[1])
if ARGV[3] ~= '' and (phase or 'gathering') == ARGV[4] then
  -- An absent phase (lost with its keys) is made anew here: it gets its TTL, not none.
  if phase then redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
  else redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[2]) end
end
return ARGV[1]
"""


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


def refresh(pipe: Pipeline, session_id: str, ttl_s: int) -> None:
    """Queue on `pipe` another `ttl_s` of life for the session record (activity)."""
    pipe.expire(_tenant_key(session_id), ttl_s)
    pipe.expire(_phase_key(session_id), ttl_s)


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


def decision_key(session_id: str, maker: str, event_id: str) -> str:
    """Where `maker` records what it decided about one event."""
    return session_key(session_id, "decided", maker, event_id)


async def decided(redis: Redis, session_id: str, maker: str, event_id: str) -> str | None:
    """What `maker` decided about the event, if it did."""
    return text_or_none(await redis.get(decision_key(session_id, maker, event_id)))


async def decide_once(
    redis: Redis,
    session_id: str,
    maker: str,
    event_id: str,
    decision: str,
    move: tuple[Phase, Phase] | None,
    ttl_s: int,
) -> str:
    """Record `maker`'s decision about an event and make its phase move, atomically, once.

    Returns the decision that stands: this one, or the one a first (crashed) run recorded,
    in which case nothing moves again. The move happens only from its `from_` phase.
    """
    if move is not None and move not in TRANSITIONS:
        raise IllegalTransition(f"no phase transition {move[0].value} -> {move[1].value}")
    from_, to = move or ("", "")
    keys = (_phase_key(session_id), decision_key(session_id, maker, event_id))
    return text(await redis.eval(_DECIDE_ONCE, 2, *keys, decision, ttl_s, to, from_))


async def phase(redis: Redis, session_id: str) -> Phase:
    """The session's current phase (gathering when it has none yet)."""
    return Phase(text_or_none(await redis.get(_phase_key(session_id))) or Phase.GATHERING)


async def tenant(redis: Redis, session_id: str) -> str | None:
    """The tenant that owns the session, or None if there is no such session."""
    return text_or_none(await redis.get(_tenant_key(session_id)))


async def count_phases(redis: Redis, session_ids: Sequence[str], batch: int = 500) -> Tally[str]:
    """Tally the phases of `session_ids` (the caller's bounded index, never a SCAN).

    One MGET per `batch` sessions, whatever else the keyspace holds.
    """
    tally: Tally[str] = Tally()
    for start in range(0, len(session_ids), batch):
        keys = [_phase_key(i) for i in session_ids[start : start + batch]]
        tally.update(text(v) for v in await redis.mget(keys) if v)
    return tally
