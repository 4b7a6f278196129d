"""Planner handlers: compile the plan once the user confirmed the requirements."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from faststream import Context
from prometheus_client import Counter

from catalog import Catalogue
from schemas.confirmation import RequirementsConfirmed
from schemas.plan import PlanCompiled
from schemas.turn import Notes, Phase
from services.planner import logic, prompt
from services.planner.store import PlanStore
from shared.handling import HandlerDeps, handles
from shared.model import ModelPort
from shared.wiring import Publisher

log = logging.getLogger("planwire.planner")
PLAN_REPAIRS = Counter(
    "planwire_plan_repairs_total", "Plan rules code enforced after the model's proposal.", ["rule"]
)


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need; the service kit fills each field (shared.wiring)."""

    store: PlanStore
    model: ModelPort
    catalogue: Catalogue
    compiled: Publisher[PlanCompiled]


@handles("planner")
async def on_requirements_confirmed(event: RequirementsConfirmed, deps: Deps = Context()) -> None:
    """Compile and log the plan, move planning to executing, publish PlanCompiled."""
    plan_id = logic.plan_id_for(event.event_id)
    plan = await deps.store.read(event.session_id, plan_id) or await compile_and_log(
        event, plan_id, deps
    )
    if plan is None or not await deps.store.enter_executing(event.session_id):
        log.info(
            "session %s is not planning; confirmation %s ignored", event.session_id, event.event_id
        )
        return
    out = PlanCompiled.caused_by(event, plan_id=plan_id, nodes=plan.nodes, repairs=plan.repairs)
    await deps.compiled.publish(out, key=out.key())


async def compile_and_log(
    event: RequirementsConfirmed, plan_id: str, deps: Deps
) -> logic.Compiled | None:
    """Ask the model, enforce the rules, log the plan; None unless the session is planning."""
    if await deps.store.phase(event.session_id) != Phase.PLANNING:
        return None
    plan = logic.compile_plan(await propose(event.notes, deps), event.notes, deps.catalogue)
    for rule in plan.repairs:
        PLAN_REPAIRS.labels(rule).inc()
    await deps.store.log(event.session_id, plan_id, plan, event.notes.requirement_summary)
    return plan


async def propose(notes: Notes, deps: Deps) -> logic.Proposal:
    """The model's order and instructions, or the rules' when the model is not available."""
    result = await deps.model.structured(
        "planner",
        prompt.messages(notes, deps.catalogue),
        prompt.output_schema(deps.catalogue),
        fallback=lambda: logic.heuristic_proposal(notes, deps.catalogue),
        max_tokens=400,
    )
    return logic.proposal_from(result.data)
