"""The planner's store: it alone writes the plan context log (`state.plan`)."""

from __future__ import annotations

from schemas.turn import Phase
from services.planner.logic import Compiled
from state import plan, session
from state.plan import PlanWriter


class PlanStore(PlanWriter):
    """Logs and reads one session's plan; reads and advances its phase."""

    async def log(self, session_id: str, plan_id: str, compiled: Compiled, summary: str) -> bool:
        """Log the plan atomically; False when this plan was already logged."""
        return await self.write(session_id, plan_id, compiled.nodes, compiled.repairs, summary)

    async def read(self, session_id: str, plan_id: str) -> Compiled | None:
        """The logged plan if it is `plan_id`, else None."""
        found = await plan.nodes_of(self.redis, session_id, plan_id)
        return Compiled(*found) if found else None

    async def phase(self, session_id: str) -> Phase:
        """The session's phase."""
        return await session.phase(self.redis, session_id)

    async def enter_executing(self, session_id: str) -> bool:
        """planning -> executing; also true when a previous attempt already moved it."""
        return await session.advance(self.redis, session_id, Phase.PLANNING, Phase.EXECUTING)
