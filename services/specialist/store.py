"""What the step runtime reads and writes in Redis.

Owned here (written only by step runners):
  pw:{sid}:artifact:<node_id>     list, one JSON per version (version = position, 1-based):
                                  {"version", "node_id", "kind", "specialist", "content",
                                   "plan_id", "attempt", "edited_by_user", "created_at"}.
                                  The last element is current. A user edit appends a version
                                  with edited_by_user=true (through `append_artifact`); old
                                  versions are kept.
  pw:{sid}:plan:executions        hash node_id -> times a runner started the step
  pw:{sid}:plan:context:<node_id> JSON, the context the step's last attempt was built from
  pw:{sid}:plan:exchange:<node_id> list, the raw model exchanges of the step (audit only:
                                  never fed to another step)
  pw:{sid}:workflow               string, the saved workflow id (the gateway reads it)
  pw:{sid}:workflow:doc           string, the saved workflow document (JSON)
  pw:workflow:{<workflow_id>}     string, the session id owning a workflow (global lookup
                                  for GET /v1/workflows/{id}; written after the session keys)
Read only: pw:{sid}:plan, pw:{sid}:plan:messages (planner), pw:{sid}:plan:run and
pw:{sid}:plan:steps (dispatcher), pw:{sid}:transcript (trimmer).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from redis.asyncio import Redis

from schemas.outline import IndexedTurn, Outline
from schemas.plan import PlanNode
from schemas.turn import ChatMessage
from services.specialist.context import Artifact, PlanLog
from shared import recall
from shared.redis import session_key

# Append ARGV[1] (a JSON object without its version) as the next version; the version is
# spliced in here so two writers can never claim the same number. Returns the version.
_APPEND_VERSION = """
local version = redis.call('LLEN', KEYS[1]) + 1
redis.call('RPUSH', KEYS[1], '{"version":' .. version .. ',' .. string.sub(ARGV[1], 2))
redis.call('EXPIRE', KEYS[1], ARGV[2])
return version
"""

# The document and the session's pointer to it change together.
_SAVE = """
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1
"""


def workflow_index_key(workflow_id: str) -> str:
    """Global lookup from a workflow id to its session (hash-tagged by the workflow id)."""
    return f"pw:workflow:{{{workflow_id}}}"


class StepStore:
    """One session's plan log, artifacts, transcript and saved workflow, as runners see them."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        self.redis, self.ttl_s = redis, ttl_s

    async def plan(self, session_id: str) -> PlanLog | None:
        """The planner's log: plan id, nodes, summary, creation time, per-node messages."""
        plan_id, nodes, summary, created = await self.redis.hmget(
            session_key(session_id, "plan"), "plan_id", "nodes", "summary", "created_at"
        )
        if not plan_id or not nodes:
            return None
        raw_messages = await self.redis.hgetall(session_key(session_id, "plan", "messages"))
        messages = {
            node_id: [m["text"] for m in json.loads(raw)] for node_id, raw in raw_messages.items()
        }
        return PlanLog(
            plan_id,
            [PlanNode.model_validate(n) for n in json.loads(nodes)],
            summary or "",
            created or "",
            messages,
        )

    async def step_settled(self, session_id: str, plan_id: str, index: int) -> bool:
        """True when the dispatcher already closed this step (or moved to another plan)."""
        run_plan = await self.redis.hget(session_key(session_id, "plan", "run"), "plan_id")
        status = await self.redis.hget(session_key(session_id, "plan", "steps"), f"{index}:status")
        return run_plan != plan_id or status in ("done", "failed")

    async def artifacts(self, session_id: str, node_ids: list[str]) -> dict[str, Artifact]:
        """The current version of each node's artifact, for the nodes that have one."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for node_id in node_ids:
                pipe.lindex(session_key(session_id, "artifact", node_id), -1)
            raw = await pipe.execute()
        return {
            node_id: Artifact.from_json(item)
            for node_id, item in zip(node_ids, raw, strict=False)
            if item
        }

    async def append_artifact(
        self,
        session_id: str,
        node: PlanNode,
        kind: str,
        content: dict,
        *,
        plan_id: str,
        attempt: int | None,
        edited_by_user: bool = False,
    ) -> int:
        """Append a new version of the node's artifact (attempt None for a user edit); returns its version."""
        body = {
            "node_id": node.node_id,
            "kind": kind,
            "specialist": node.specialist,
            "content": content,
            "plan_id": plan_id,
            "attempt": attempt,
            "edited_by_user": edited_by_user,
            "created_at": datetime.now(UTC).isoformat(),
        }
        key = session_key(session_id, "artifact", node.node_id)
        return int(await self.redis.eval(_APPEND_VERSION, 1, key, json.dumps(body), self.ttl_s))

    async def transcript(self, session_id: str, last: int) -> list[ChatMessage]:
        """The last `last` lines of the conversation, oldest first.

        The trimmer keeps the transcript as a sorted set of `<message id>|<message JSON>`.
        """
        raw = await self.redis.zrange(session_key(session_id, "transcript"), -last, -1)
        return [ChatMessage.model_validate_json(item.split("|", 1)[1]) for item in raw]

    async def outline(self, session_id: str) -> tuple[Outline, dict[int, IndexedTurn]]:
        """The indexer's outline and the turns it kept: where trimmed-away turns are recalled from."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(session_key(session_id, "outline"))
            pipe.hgetall(session_key(session_id, "outline", "turns"))
            raw_outline, raw_turns = await pipe.execute()
        return recall.parse(raw_outline, raw_turns)

    async def count_execution(self, session_id: str, node_id: str) -> int:
        """Count that a runner started this step; returns the count so far."""
        key = session_key(session_id, "plan", "executions")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(key, node_id, 1)
            pipe.expire(key, self.ttl_s)
            count, _ = await pipe.execute()
        return int(count)

    async def record(self, session_id: str, what: str, node_id: str, data: dict) -> None:
        """Keep the step's context ("context", replaced) or a model exchange ("exchange", appended)."""
        key = session_key(session_id, "plan", what, node_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            if what == "context":
                pipe.set(key, json.dumps(data))
            else:
                pipe.rpush(key, json.dumps(data))
            pipe.expire(key, self.ttl_s)
            await pipe.execute()

    async def save_workflow(self, session_id: str, document: dict) -> None:
        """Persist the document and point the session at it; then the global lookup."""
        workflow_id = document["workflow_id"]
        keys = (session_key(session_id, "workflow"), session_key(session_id, "workflow", "doc"))
        await self.redis.eval(_SAVE, 2, *keys, workflow_id, json.dumps(document), self.ttl_s)
        await self.redis.set(workflow_index_key(workflow_id), session_id, ex=self.ttl_s)
