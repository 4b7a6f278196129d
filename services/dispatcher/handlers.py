"""Dispatcher handlers: walk the plan by its cursor; no model anywhere in this service."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Annotated

from faststream import Context
from faststream.kafka import KafkaBroker
from prometheus_client import Counter

from schemas.plan import (
    PlanCompiled,
    PlanNode,
    RunStep,
    StepCompleted,
    StepProgressed,
    WorkflowCompleted,
    WorkflowFailed,
)
from schemas.turn import Phase
from services.dispatcher import effects, logic
from services.dispatcher.logic import Deadline, Decision
from services.dispatcher.store import RunStore
from shared.handling import HandlerDeps, handles
from shared.wiring import Publisher, Setting
from state.run import RunView

log = logging.getLogger("planwire.dispatcher")
CAS_ATTEMPTS = 5
STEP_RETRIES = Counter(
    "planwire_step_retries_total",
    "Steps requested again, by runner and cause.",
    ["runner", "cause"],
)
RUNS_FINISHED = Counter(
    "planwire_runs_finished_total", "Plans walked to the end, by outcome.", ["outcome"]
)


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need; the service kit fills each field (shared.wiring)."""

    store: RunStore
    broker: KafkaBroker
    progressed: Publisher[StepProgressed]
    completed: Publisher[WorkflowCompleted]
    failed: Publisher[WorkflowFailed]
    step_timeout_s: float
    max_attempts: Annotated[int, Setting("step_attempts")]


@handles("dispatcher")
async def on_plan_compiled(event: PlanCompiled, deps: Deps = Context()) -> None:
    """Open the run of a new plan and request its first step."""
    await deps.store.add_deadline(
        Deadline(event.session_id, event.plan_id, 0, 1), time.time() + deps.step_timeout_s
    )
    started = await deps.store.start(event.session_id, event.plan_id, len(event.nodes))
    if started or logic.first_step_pending(await deps.store.read(event.session_id), event.plan_id):
        # A redelivery after a crash between the start and the request asks again: the
        # request's id is derived from the step attempt, so the runner dedupes a second copy.
        for out in effects.dispatched(event.session_id, event.plan_id, event.nodes, 0, 1):
            await publish(deps, out)


@handles("dispatcher")
async def on_step_completed(event: StepCompleted, deps: Deps = Context()) -> None:
    """Advance past a finished step (compare-and-set), or re-request a failed one."""
    nodes = await deps.store.nodes(event.session_id, event.plan_id)
    decide = partial(logic.on_completion, done=event, max_attempts=deps.max_attempts)
    decision, seen = await settle(deps, event.session_id, nodes, decide, event.artifact_version)
    await act(deps, event.session_id, decision, seen, nodes, cause="failed")


async def on_deadline(deps: Deps, deadline: Deadline) -> None:
    """A step attempt missed its deadline: re-request it, or fail the run when out of attempts."""
    nodes = await deps.store.nodes(deadline.session_id, deadline.plan_id)
    decide = partial(
        logic.on_deadline,
        deadline=deadline,
        max_attempts=deps.max_attempts,
        timeout_s=deps.step_timeout_s,
    )
    decision, seen = await settle(deps, deadline.session_id, nodes, decide)
    await act(deps, deadline.session_id, decision, seen, nodes, cause="timeout")
    await deps.store.remove_deadline(deadline)


async def settle(
    deps: Deps,
    session_id: str,
    nodes: list[PlanNode],
    decide: Callable[[RunView | None], Decision],
    version: int | None = None,
) -> tuple[Decision, RunView | None]:
    """Decide on the current run and apply it by compare-and-set; decide again if it moved."""
    for _ in range(CAS_ATTEMPTS):
        seen = await deps.store.read(session_id)
        decision = logic.explain(decide(seen), seen, nodes)
        if decision.action in ("ignore", "announce", "resend") or seen is None:
            return decision, seen
        if (deadline := effects.next_deadline(session_id, seen, decision)) is not None:
            await deps.store.add_deadline(deadline, time.time() + deps.step_timeout_s)
        if await deps.store.apply(session_id, seen, decision, version):
            return decision, seen
    raise RuntimeError(f"the run of {session_id} kept changing under the dispatcher")


async def act(
    deps: Deps,
    session_id: str,
    decision: Decision,
    seen: RunView | None,
    nodes: list[PlanNode],
    *,
    cause: str,
) -> None:
    """Carry out an applied decision: its events in order, the run's end, old deadlines."""
    if decision.action == "ignore" or seen is None:
        log.debug("ignored for %s: %s", session_id, decision.reason)
        return
    if decision.action == "retry":
        STEP_RETRIES.labels(nodes[seen.cursor].runner, cause).inc()
        log.warning(
            "re-requesting step %d of %s (attempt %d): %s",
            seen.cursor,
            session_id,
            decision.attempt,
            decision.reason,
        )
    todo = effects.of(session_id, decision, seen, nodes)
    for event in todo.events:
        await publish(deps, event)
    if todo.ending is not None:
        await end_run(deps, session_id, seen.plan_id, nodes, todo)
    for deadline in todo.clear:
        await deps.store.remove_deadline(deadline)


async def publish(deps: Deps, event: RunStep | StepProgressed) -> None:
    """A RunStep goes to its runner's command topic; progress goes to the user's stream."""
    if isinstance(event, RunStep):
        await deps.broker.publish(event, RunStep.topic_for(event.node.runner).name, key=event.key())
    else:
        await deps.progressed.publish(event, key=event.key())


async def end_run(
    deps: Deps, session_id: str, plan_id: str, nodes: list[PlanNode], todo: effects.Effects
) -> None:
    """The session leaves executing, and the user hears how the run ended."""
    if todo.ending == "completed":
        summary = await deps.store.artifact(session_id, nodes[-1].node_id)
        await deps.store.end(session_id, Phase.COMPLETED)
        saved = await deps.store.workflow_id(session_id)
        await deps.completed.publish(
            done := effects.completed(session_id, plan_id, summary, saved), key=done.key()
        )
    else:
        if not todo.repeat:
            await deps.store.end(session_id, Phase.FAILED)
        reason = todo.reason or await deps.store.failure(session_id) or "the workflow failed"
        out = effects.failed(session_id, plan_id, reason)
        await deps.failed.publish(out, key=out.key())
    if not todo.repeat:
        RUNS_FINISHED.labels(todo.ending).inc()
