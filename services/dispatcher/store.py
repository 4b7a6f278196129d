"""The run state the dispatcher owns, and the global deadline set.

Owned here (written only by the dispatcher):
  pw:{sid}:plan:run    hash  plan_id, cursor, total, state (running|completed|failed)
  pw:{sid}:plan:steps  hash  "<i>:status" (dispatched|done|failed), "<i>:attempt",
                             "<i>:artifact_version", "<i>:error"
  pw:{sid}:failure     string, the reason the user reads when the run failed
  pw:deadlines         sorted set (global, no session hash tag): member
                       "<sid>|<plan_id>|<index>|<attempt>", score = deadline in epoch ms
Read only: pw:{sid}:plan (the planner's nodes) and pw:{sid}:artifact:<node_id> (the runners').

The deadline set spans sessions, so it is never touched in the same script as session keys
(Redis Cluster forbids cross-slot scripts). Entries are hints: every due entry is checked
against the session's run before anything happens, and an entry is written *before* the
transition it guards, so a crash leaves at worst an extra entry, never a step without one.
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import Redis

from schemas.plan import PlanNode
from services.dispatcher.logic import Deadline, Decision, RunView, run_view
from shared.redis import session_key

DEADLINES_KEY = "pw:deadlines"

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

# Claim up to ARGV[3] due entries by pushing their score to ARGV[2] (a lease): a second
# dispatcher replica sweeping at the same moment sees them as not due. A claimer that dies
# lets the lease run out and the entry comes due again.
_CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due
"""


class RunStore:
    """Reads and compare-and-sets one session's run; keeps the deadline set."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    def _keys(self, session_id: str) -> tuple[str, str, str]:
        return (
            session_key(session_id, "plan", "run"),
            session_key(session_id, "plan", "steps"),
            session_key(session_id, "failure"),
        )

    async def read(self, session_id: str) -> RunView | None:
        """The run as it stands, read in one transaction."""
        run_key, steps_key, _ = self._keys(session_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(run_key)
            pipe.hgetall(steps_key)
            run, steps = await pipe.execute()
        return run_view(run, steps)

    async def start(self, session_id: str, plan_id: str, total: int) -> bool:
        """Open the run at step 0, attempt 1; False when this plan was already started."""
        keys = self._keys(session_id)[:2]
        return bool(await self.redis.eval(_START, 2, *keys, plan_id, total, self.ttl_s))

    async def transition(
        self,
        session_id: str,
        seen: RunView,
        decision: Decision,
        artifact_version: int | None = None,
    ) -> bool:
        """Apply `decision` if the run is still `seen`; False when it moved meanwhile."""
        value = artifact_version if decision.action == "advance" else decision.attempt
        args = (
            seen.plan_id,
            seen.cursor,
            seen.step_attempt,
            decision.action,
            value or 0,
            decision.reason,
            self.ttl_s,
        )
        return bool(await self.redis.eval(_TRANSITION, 3, *self._keys(session_id), *args))

    async def nodes(self, session_id: str, plan_id: str) -> list[PlanNode]:
        """The plan's nodes from the planner's log; empty if the log holds another plan."""
        stored_plan, raw = await self.redis.hmget(
            session_key(session_id, "plan"), "plan_id", "nodes"
        )
        if stored_plan != plan_id or not raw:
            return []
        return [PlanNode.model_validate(node) for node in json.loads(raw)]

    async def artifact(self, session_id: str, node_id: str) -> dict[str, Any]:
        """The current content of a node's artifact (written by its runner); {} if none."""
        raw = await self.redis.lindex(session_key(session_id, "artifact", node_id), -1)
        return json.loads(raw).get("content", {}) if raw else {}

    async def add_deadline(self, deadline: Deadline, at_s: float) -> None:
        """Register (or move) the deadline of a step attempt."""
        await self.redis.zadd(DEADLINES_KEY, {deadline.member(): int(at_s * 1000)})

    async def remove_deadline(self, deadline: Deadline) -> None:
        """Forget a deadline that no longer matters."""
        await self.redis.zrem(DEADLINES_KEY, deadline.member())

    async def claim_due(self, now_s: float, lease_s: float, batch: int) -> list[Deadline]:
        """Due deadlines, each claimed for `lease_s` by this caller alone."""
        due = await self.redis.eval(
            _CLAIM_DUE, 1, DEADLINES_KEY, int(now_s * 1000), int((now_s + lease_s) * 1000), batch
        )
        return [Deadline.parse(member) for member in due]
