"""The dispatcher's store: it alone writes the run (`state.run`) and keeps the deadline set.

Owned here, private to the dispatcher:
  pw:deadlines  sorted set (global, no session hash tag): member
                "<sid>|<plan_id>|<index>|<attempt>", score = deadline in epoch ms
Read: the plan's nodes (`state.plan`), the last artifact (`state.artifacts`), the saved
workflow id (`state.workflow`); moved: the phase, executing -> completed or failed.

The deadline set spans sessions, so it is never touched in the same script as session keys
(Redis Cluster forbids cross-slot scripts). Entries are hints: every due entry is checked
against the session's run before anything happens, and an entry is written *before* the
transition it guards, so a crash leaves at worst an extra entry, never a step without one.
"""

from __future__ import annotations

from typing import Any

from schemas.plan import PlanNode
from schemas.turn import Phase
from services.dispatcher.logic import Deadline, Decision
from state import artifacts, plan, run, session, workflow
from state.run import RunView, RunWriter

DEADLINES_KEY = "pw:deadlines"

# Claim up to ARGV[3] due entries by pushing their score to ARGV[2] (a lease): a second
# dispatcher replica sweeping at the same moment sees them as not due. A claimer that dies
# lets the lease run out and the entry comes due again.
_CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due
"""


class RunStore(RunWriter):
    """Reads and compare-and-sets one session's run; keeps the deadline set."""

    async def read(self, session_id: str) -> RunView | None:
        """The run as it stands, read in one transaction."""
        return await run.read(self.redis, session_id)

    async def apply(
        self,
        session_id: str,
        seen: RunView,
        decision: Decision,
        artifact_version: int | None = None,
    ) -> bool:
        """Apply `decision` if the run is still `seen`; False when it moved meanwhile."""
        action = decision.action
        if action not in ("advance", "retry", "fail"):
            raise ValueError(f"{action!r} changes no run")
        value = artifact_version if action == "advance" else decision.attempt
        return await self.transition(session_id, seen, action, value or 0, decision.reason)

    async def nodes(self, session_id: str, plan_id: str) -> list[PlanNode]:
        """The plan's nodes from the planner's log; empty if the log holds another plan."""
        found = await plan.nodes_of(self.redis, session_id, plan_id)
        return found[0] if found else []

    async def artifact(self, session_id: str, node_id: str) -> dict[str, Any]:
        """The current content of a node's artifact (written by its runner); {} if none."""
        return await artifacts.content(self.redis, session_id, node_id)

    async def workflow_id(self, session_id: str) -> str | None:
        """The saved workflow's id, once the save step ran."""
        return await workflow.workflow_id(self.redis, session_id)

    async def failure(self, session_id: str) -> str | None:
        """Why the run failed, as the run recorded it."""
        return await run.failure(self.redis, session_id)

    async def end(self, session_id: str, outcome: Phase) -> bool:
        """The session leaves executing: completed or failed."""
        return await session.advance(self.redis, session_id, Phase.EXECUTING, outcome)

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
