"""The plan context log, written by the planner once per plan.

  pw:{sid}:plan           hash  plan_id, nodes (JSON list of PlanNode, in order), summary
                                (the confirmed requirement summary), repairs (JSON), created_at
  pw:{sid}:plan:messages  hash  node_id -> JSON list of messages for that node
                                ([{"role": "planner", "text": <instructions>}])

The dispatcher reads the nodes to walk them; the step runners read the whole log. The
cursor and step statuses are the run's (`state.run`); the artifacts are `state.artifacts`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from redis.asyncio import Redis

from schemas.plan import PlanNode
from shared.redis import RedisStore, session_key, text, text_map, text_or_none

WRITERS = {"PlanWriter": {"planner"}}

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


@dataclass(frozen=True)
class PlanLog:
    """The planner's log of a plan, as a step reads it."""

    plan_id: str
    nodes: list[PlanNode]
    summary: str
    created_at: str
    messages: dict[str, list[str]]


def _keys(session_id: str) -> tuple[str, str]:
    return session_key(session_id, "plan"), session_key(session_id, "plan", "messages")


def _nodes(raw: bytes | str) -> list[PlanNode]:
    return [PlanNode.model_validate(n) for n in json.loads(raw)]


async def read(redis: Redis, session_id: str) -> PlanLog | None:
    """The whole log: plan id, nodes, summary, creation time, per-node messages."""
    plan_key, messages_key = _keys(session_id)
    plan_id, nodes, summary, created = await redis.hmget(
        plan_key, "plan_id", "nodes", "summary", "created_at"
    )
    if not plan_id or not nodes:
        return None
    messages = {
        node_id: [m["text"] for m in json.loads(raw)]
        for node_id, raw in text_map(await redis.hgetall(messages_key)).items()
    }
    return PlanLog(
        text(plan_id),
        _nodes(nodes),
        text_or_none(summary) or "",
        text_or_none(created) or "",
        messages,
    )


async def nodes_of(
    redis: Redis, session_id: str, plan_id: str
) -> tuple[list[PlanNode], list[str]] | None:
    """The nodes and repairs of `plan_id`; None when the log holds another plan (or none)."""
    stored, nodes, repairs = await redis.hmget(_keys(session_id)[0], "plan_id", "nodes", "repairs")
    if stored != plan_id or not nodes:
        return None
    return _nodes(nodes), json.loads(repairs or "[]")


class PlanWriter(RedisStore):
    """Logs one session's plan, once per plan id."""

    async def write(
        self, session_id: str, plan_id: str, nodes: list[PlanNode], repairs: list[str], summary: str
    ) -> bool:
        """Log the plan atomically; False when this plan was already logged."""
        messages = [
            part
            for n in nodes
            for part in (n.node_id, json.dumps([{"role": "planner", "text": n.instructions}]))
        ]
        encoded = json.dumps([n.model_dump() for n in nodes])
        created = datetime.now(UTC).isoformat()
        args: list[str | int] = [plan_id, encoded, summary, json.dumps(repairs), created]
        args += [self.ttl_s, *messages]
        return bool(await self.redis.eval(_WRITE_PLAN, 2, *_keys(session_id), *args))
