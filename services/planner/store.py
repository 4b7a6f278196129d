"""The plan context log, written by the planner once per plan.

Owned here (written only by the planner; the dispatcher and the step runners read it):
  pw:{sid}:plan           hash  plan_id, nodes (JSON list of PlanNode, in order), summary
                                (the confirmed requirement summary), repairs (JSON), created_at
  pw:{sid}:plan:messages  hash  node_id -> JSON list of messages for that node
                                ([{"role": "planner", "text": <instructions>}])
The cursor and step statuses are the dispatcher's (pw:{sid}:plan:run, :plan:steps); the
artifacts are the runners' (pw:{sid}:artifact:<node_id>).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from redis.asyncio import Redis

from schemas.plan import PlanNode
from services.planner.logic import Compiled
from shared.redis import session_key

# Write the plan unless this very plan is already logged (a redelivery keeps the first
# compile, so the plan never changes under a running dispatcher). ARGV: plan_id, nodes,
# summary, repairs, created_at, ttl, then node_id/messages pairs.
_WRITE_PLAN = """
if redis.call('HGET', KEYS[1], 'plan_id') == ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], 'plan_id', ARGV[1], 'nodes', ARGV[2], 'summary', ARGV[3], 'repairs', ARGV[4], 'created_at', ARGV[5])
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 1
"""


class PlanStore:
    """Writes and reads one session's plan context log."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    async def write(self, session_id: str, plan_id: str, plan: Compiled, summary: str) -> bool:
        """Log the plan atomically; False when this plan was already logged."""
        keys = (session_key(session_id, "plan"), session_key(session_id, "plan", "messages"))
        nodes = json.dumps([n.model_dump() for n in plan.nodes])
        messages = [
            part
            for n in plan.nodes
            for part in (n.node_id, json.dumps([{"role": "planner", "text": n.instructions}]))
        ]
        created = datetime.now(UTC).isoformat()
        args: list[str | int] = [plan_id, nodes, summary, json.dumps(plan.repairs), created]
        args += [self.ttl_s, *messages]
        return bool(await self.redis.eval(_WRITE_PLAN, 2, *keys, *args))

    async def read(self, session_id: str, plan_id: str) -> Compiled | None:
        """The logged plan if it is `plan_id`, else None."""
        stored, nodes, repairs = await self.redis.hmget(
            session_key(session_id, "plan"), "plan_id", "nodes", "repairs"
        )
        if stored != plan_id or not nodes:
            return None
        return Compiled(
            [PlanNode.model_validate(n) for n in json.loads(nodes)], json.loads(repairs or "[]")
        )
