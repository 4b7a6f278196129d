"""The step runtime's store: it alone writes the artifacts and the saved workflow.

Written here: the artifacts (`state.artifacts`), the saved workflow (`state.workflow`), and
two records private to the runners:
  pw:{sid}:plan:executions         hash node_id -> times a runner started the step
  pw:{sid}:plan:context:<node_id>  JSON, the context the step's last attempt was built from
  pw:{sid}:plan:exchange:<node_id> list, the raw model exchanges of the step (audit only:
                                   never fed to another step, except under the naive context
                                   policy, which chains steps to measure what that costs)
Read: the plan log (`state.plan`), whether the run closed a step (`state.run`), the last
lines of the transcript (`state.transcript`) and the outline recall reads (`state.outline`).
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import Redis

from schemas.outline import IndexedTurn, Outline
from schemas.turn import ChatMessage
from shared.redis import session_key
from state import artifacts, outline, plan, run, transcript
from state.artifacts import Artifact, ArtifactWriter
from state.plan import PlanLog
from state.workflow import WorkflowWriter


class StepStore(ArtifactWriter):
    """One session's plan log, artifacts, transcript and saved workflow, as runners see them."""

    def __init__(self, redis: Redis, ttl_s: int) -> None:
        super().__init__(redis, ttl_s)
        self._workflow = WorkflowWriter(redis, ttl_s)

    async def plan(self, session_id: str) -> PlanLog | None:
        """The planner's log: plan id, nodes, summary, creation time, per-node messages."""
        return await plan.read(self.redis, session_id)

    async def step_settled(self, session_id: str, plan_id: str, index: int) -> bool:
        """True when the dispatcher already closed this step (or moved to another plan)."""
        return await run.step_settled(self.redis, session_id, plan_id, index)

    async def artifacts(self, session_id: str, node_ids: list[str]) -> dict[str, Artifact]:
        """The current version of each node's artifact, for the nodes that have one."""
        return await artifacts.current(self.redis, session_id, node_ids)

    # A new version of a node's artifact (attempt None for a user edit); returns its version.
    append_artifact = ArtifactWriter.append

    async def transcript(self, session_id: str, last: int | None) -> list[ChatMessage]:
        """The last `last` lines of the conversation (None: all of them), oldest first."""
        return await transcript.read(self.redis, session_id, last)

    async def outline(self, session_id: str) -> tuple[Outline, dict[int, IndexedTurn]]:
        """The indexer's outline and the turns it kept: where trimmed-away turns are recalled from."""
        return await outline.read(self.redis, session_id)

    async def count_execution(self, session_id: str, node_id: str) -> int:
        """Count that a runner started this step; returns the count so far."""
        key = session_key(session_id, "plan", "executions")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(key, node_id, 1)
            pipe.expire(key, self.ttl_s)
            count, _ = await pipe.execute()
        return int(count)

    async def record(self, session_id: str, what: str, node_id: str, data: dict[str, Any]) -> None:
        """Keep the step's context ("context", replaced) or a model exchange ("exchange", appended)."""
        key = _record_key(session_id, what, node_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            if what == "context":
                pipe.set(key, json.dumps(data))
            else:
                pipe.rpush(key, json.dumps(data))
            pipe.expire(key, self.ttl_s)
            await pipe.execute()

    async def last_exchange(
        self, session_id: str, node_ids: list[str]
    ) -> tuple[int, dict[str, Any]] | None:
        """The latest model exchange among these nodes, the last node first that has one: its
        position in `node_ids` and the exchange. Read only under the naive context policy,
        which chains steps (shared/policy.py); the default never feeds one step another's."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for node_id in node_ids:
                pipe.lindex(_record_key(session_id, "exchange", node_id), -1)
            found = await pipe.execute()
        for position in reversed(range(len(node_ids))):
            if found[position]:
                return position, json.loads(found[position])
        return None

    async def save_workflow(self, session_id: str, document: dict[str, Any]) -> None:
        """Persist the document and point the session at it; then the global lookup."""
        await self._workflow.save(session_id, document)


def _record_key(session_id: str, what: str, node_id: str) -> str:
    """Where a step's record is kept: `pw:{sid}:plan:context:<node>` or `...:exchange:<node>`."""
    return session_key(session_id, "plan", what, node_id)
