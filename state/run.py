"""The run of a plan, written by the dispatcher: where the cursor stands and how it ended.

  pw:{sid}:plan:run    hash  plan_id, cursor, total, state (running|completed|failed)
  pw:{sid}:plan:steps  hash  "<i>:status" (dispatched|done|failed), "<i>:attempt",
                             "<i>:artifact_version", "<i>:error"
  pw:{sid}:failure     string, the reason the user reads when the run failed

Every change is a compare-and-set on the run as the dispatcher last saw it (`RunView`), so a
duplicated, late or concurrent message can never skip or repeat a step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from redis.asyncio import Redis

from shared.redis import RedisStore, session_key, text_map, text_or_none

WRITERS = {"RunWriter": {"dispatcher"}}

Action = Literal["advance", "retry", "fail"]

# Start a run for plan ARGV[1] unless this plan is already running or ran.
_START = """
if redis.call('HGET', KEYS[1], 'plan_id') == ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'plan_id', ARGV[1], 'cursor', 0, 'total', ARGV[2], 'state', 'running')
redis.call('HSET', KEYS[2], '0:status', 'dispatched', '0:attempt', 1)
for i = 1, 2 do redis.call('EXPIRE', KEYS[i], ARGV[3]) end
return 1
"""

# Apply ARGV[4] (advance|retry|fail) only if the run is still exactly as the caller saw it:
# same plan, running, same cursor, that step dispatched at attempt ARGV[3]. Returns 1 if applied.
_TRANSITION = """
local run = redis.call('HMGET', KEYS[1], 'plan_id', 'cursor', 'state', 'total')
if run[1] ~= ARGV[1] or run[2] ~= ARGV[2] or run[3] ~= 'running' then return 0 end
local i = ARGV[2]
local step = redis.call('HMGET', KEYS[2], i .. ':status', i .. ':attempt')
if step[1] ~= 'dispatched' or step[2] ~= ARGV[3] then return 0 end
if ARGV[4] == 'advance' then
  local nxt = tonumber(i) + 1
  redis.call('HSET', KEYS[2], i .. ':status', 'done', i .. ':artifact_version', ARGV[5])
  redis.call('HSET', KEYS[1], 'cursor', nxt)
  if nxt >= tonumber(run[4]) then
    redis.call('HSET', KEYS[1], 'state', 'completed')
  else
    redis.call('HSET', KEYS[2], nxt .. ':status', 'dispatched', nxt .. ':attempt', 1)
  end
elseif ARGV[4] == 'retry' then
  redis.call('HSET', KEYS[2], i .. ':attempt', ARGV[5], i .. ':error', ARGV[6])
elseif ARGV[4] == 'fail' then
  redis.call('HSET', KEYS[2], i .. ':status', 'failed', i .. ':error', ARGV[6])
  redis.call('HSET', KEYS[1], 'state', 'failed')
  redis.call('SET', KEYS[3], ARGV[6], 'EX', ARGV[7])
else
  return redis.error_reply('unknown action ' .. ARGV[4])
end
for k = 1, 2 do redis.call('EXPIRE', KEYS[k], ARGV[7]) end
return 1
"""


@dataclass(frozen=True)
class RunView:
    """Where one session's run stands: the plan, the cursor and the step under it."""

    plan_id: str
    cursor: int
    total: int
    state: str  # running | completed | failed
    step_status: str  # pending | dispatched | done | failed (of the step at the cursor)
    step_attempt: int


def run_view(run: dict[str, str], steps: dict[str, str]) -> RunView | None:
    """Build the view from the run and steps hashes; None when there is no run."""
    if not run.get("plan_id"):
        return None
    cursor = int(run["cursor"])
    return RunView(
        plan_id=run["plan_id"],
        cursor=cursor,
        total=int(run["total"]),
        state=run["state"],
        step_status=steps.get(f"{cursor}:status", "pending"),
        step_attempt=int(steps.get(f"{cursor}:attempt", 0)),
    )


def _keys(session_id: str) -> tuple[str, str, str]:
    return (
        session_key(session_id, "plan", "run"),
        session_key(session_id, "plan", "steps"),
        session_key(session_id, "failure"),
    )


async def read(redis: Redis, session_id: str) -> RunView | None:
    """The run as it stands, read in one transaction."""
    run_key, steps_key, _ = _keys(session_id)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hgetall(run_key)
        pipe.hgetall(steps_key)
        run, steps = await pipe.execute()
    return run_view(text_map(run), text_map(steps))


async def step_settled(redis: Redis, session_id: str, plan_id: str, index: int) -> bool:
    """True when the dispatcher already closed this step (or moved to another plan)."""
    run_key, steps_key, _ = _keys(session_id)
    run_plan = await redis.hget(run_key, "plan_id")
    status = await redis.hget(steps_key, f"{index}:status")
    return run_plan != plan_id or status in ("done", "failed")


async def failure(redis: Redis, session_id: str) -> str | None:
    """Why the run failed, once it has."""
    return text_or_none(await redis.get(_keys(session_id)[2]))


class RunWriter(RedisStore):
    """Opens and compare-and-sets one session's run."""

    async def start(self, session_id: str, plan_id: str, total: int) -> bool:
        """Open the run at step 0, attempt 1; False when this plan was already started."""
        keys = _keys(session_id)[:2]
        return bool(await self.redis.eval(_START, 2, *keys, plan_id, total, self.ttl_s))

    async def transition(
        self, session_id: str, seen: RunView, action: Action, value: int, reason: str
    ) -> bool:
        """Apply `action` if the run is still `seen`; False when it moved meanwhile.

        `value` is the artifact version for advance, the new attempt for retry.
        """
        args = (seen.plan_id, seen.cursor, seen.step_attempt, action, value, reason, self.ttl_s)
        return bool(await self.redis.eval(_TRANSITION, 3, *_keys(session_id), *args))
