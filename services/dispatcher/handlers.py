"""Dispatcher handlers: walk the plan by its cursor; no model anywhere in this service."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

from faststream import Context
from faststream.kafka import KafkaBroker
from faststream.kafka.publisher import DefaultPublisher
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
from services.dispatcher import logic
from services.dispatcher.logic import Deadline, Decision, RunView
from services.dispatcher.store import RunStore
from shared.cas import compare_and_set
from shared.handling import HandlerDeps, handles
from shared.redis import session_key

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
    """What the handlers need besides Redis and the dedupe TTL, built once in main.py."""

    store: RunStore
    broker: KafkaBroker
    progressed: DefaultPublisher
    completed: DefaultPublisher
    failed: DefaultPublisher
    step_timeout_s: float
    max_attempts: int


@handles("dispatcher")
async def on_plan_compiled(event: PlanCompiled, deps: Deps = Context()) -> None:
    """Open the run of a new plan and request its first step."""
    await deps.store.add_deadline(
        Deadline(event.session_id, event.plan_id, 0, 1), time.time() + deps.step_timeout_s
    )
    if await deps.store.start(event.session_id, event.plan_id, len(event.nodes)):
        await dispatch(deps, event.session_id, event.plan_id, event.nodes, 0, 1)


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
        if decision.action in ("ignore", "announce") or seen is None:
            return decision, seen
        await register_next_deadline(deps, session_id, seen, decision)
        if await deps.store.transition(session_id, seen, decision, version):
            return decision, seen
    raise RuntimeError(f"the run of {session_id} kept changing under the dispatcher")


async def register_next_deadline(
    deps: Deps, session_id: str, seen: RunView, decision: Decision
) -> None:
    """Written before the transition, so a crash can never leave a dispatched step without one."""
    nxt = {"advance": (seen.cursor + 1, 1), "retry": (seen.cursor, decision.attempt)}.get(
        decision.action
    )
    if nxt and nxt[0] < seen.total:
        await deps.store.add_deadline(
            Deadline(session_id, seen.plan_id, *nxt), time.time() + deps.step_timeout_s
        )


async def act(
    deps: Deps,
    session_id: str,
    decision: Decision,
    seen: RunView | None,
    nodes: list[PlanNode],
    *,
    cause: str,
) -> None:
    """Carry out an applied decision: progress, the next request, or the run's end."""
    if decision.action == "ignore" or seen is None:
        log.debug("ignored for %s: %s", session_id, decision.reason)
        return
    actions: dict[str, Callable[[], Awaitable[None]]] = {
        "advance": lambda: advance(deps, session_id, seen, nodes),
        "retry": lambda: retry(deps, session_id, seen, nodes, decision, cause),
        "fail": lambda: fail(deps, session_id, seen, decision.reason),
        "announce": lambda: announce(deps, session_id, seen, nodes),
    }
    await actions[decision.action]()
    if decision.action in ("advance", "fail"):
        await deps.store.remove_deadline(
            Deadline(session_id, seen.plan_id, seen.cursor, seen.step_attempt)
        )


async def advance(deps: Deps, session_id: str, seen: RunView, nodes: list[PlanNode]) -> None:
    """Report the finished step, then request the next one or finish the run."""
    await progress(
        deps, session_id, seen.plan_id, nodes, seen.cursor, seen.step_attempt, "completed"
    )
    if seen.cursor + 1 < seen.total:
        await dispatch(deps, session_id, seen.plan_id, nodes, seen.cursor + 1, 1)
    else:
        await finish(deps, session_id, seen.plan_id, nodes)
        RUNS_FINISHED.labels("completed").inc()


async def retry(
    deps: Deps,
    session_id: str,
    seen: RunView,
    nodes: list[PlanNode],
    decision: Decision,
    cause: str,
) -> None:
    """Request the step under the cursor again, with the next attempt number."""
    STEP_RETRIES.labels(nodes[seen.cursor].runner, cause).inc()
    log.warning(
        "re-requesting step %d of %s (attempt %d): %s",
        seen.cursor,
        session_id,
        decision.attempt,
        decision.reason,
    )
    await deps.store.remove_deadline(
        Deadline(session_id, seen.plan_id, seen.cursor, seen.step_attempt)
    )
    await dispatch(deps, session_id, seen.plan_id, nodes, seen.cursor, decision.attempt)


async def fail(deps: Deps, session_id: str, seen: RunView, reason: str) -> None:
    """The run is out of attempts (the store recorded the reason): the session fails."""
    await compare_and_set(
        deps.redis, session_key(session_id, "phase"), Phase.FAILED, [Phase.EXECUTING]
    )
    out = WorkflowFailed(
        event_id=logic.plan_event_id(seen.plan_id, "WorkflowFailed"),
        session_id=session_id,
        reason=reason,
    )
    await deps.failed.publish(out, key=out.key())
    RUNS_FINISHED.labels("failed").inc()


async def finish(deps: Deps, session_id: str, plan_id: str, nodes: list[PlanNode]) -> None:
    """After the summarizer: the session is completed and the user gets the summary."""
    content = await deps.store.artifact(session_id, nodes[-1].node_id)
    await compare_and_set(
        deps.redis, session_key(session_id, "phase"), Phase.COMPLETED, [Phase.EXECUTING]
    )
    out = WorkflowCompleted(
        event_id=logic.plan_event_id(plan_id, "WorkflowCompleted"),
        session_id=session_id,
        workflow_id=str(
            content.get("workflow_id")
            or await deps.redis.get(session_key(session_id, "workflow"))
            or "unknown"
        ),
        summary=str(content.get("summary", "")),
    )
    await deps.completed.publish(out, key=out.key())


async def announce(deps: Deps, session_id: str, seen: RunView, nodes: list[PlanNode]) -> None:
    """Publish a finished run's outcome again (same event id): a crash may have lost it."""
    if seen.state == "completed":
        await finish(deps, session_id, seen.plan_id, nodes)
    else:
        reason = await deps.redis.get(session_key(session_id, "failure")) or "the workflow failed"
        out = WorkflowFailed(
            event_id=logic.plan_event_id(seen.plan_id, "WorkflowFailed"),
            session_id=session_id,
            reason=reason,
        )
        await deps.failed.publish(out, key=out.key())


async def dispatch(
    deps: Deps, session_id: str, plan_id: str, nodes: list[PlanNode], index: int, attempt: int
) -> None:
    """Send RunStep for one node to its runner's command topic, and tell the user."""
    node = nodes[index]
    command = RunStep(
        event_id=logic.plan_event_id(plan_id, "RunStep", index, attempt),
        session_id=session_id,
        plan_id=plan_id,
        node_index=index,
        node=node,
        attempt=attempt,
    )
    await deps.broker.publish(command, RunStep.topic_for(node.runner).name, key=command.key())
    await progress(
        deps,
        session_id,
        plan_id,
        nodes,
        index,
        attempt,
        "dispatched" if attempt == 1 else "retrying",
    )


async def progress(
    deps: Deps,
    session_id: str,
    plan_id: str,
    nodes: list[PlanNode],
    index: int,
    attempt: int,
    status: str,
) -> None:
    """One StepProgressed for the user's progress stream."""
    node = nodes[index]
    out = StepProgressed(
        event_id=logic.plan_event_id(plan_id, "StepProgressed", index, attempt, status),
        session_id=session_id,
        node_index=index,
        total=len(nodes),
        node_id=node.node_id,
        runner=node.runner,
        status=status,
    )
    await deps.progressed.publish(out, key=out.key())
