"""What an applied decision emits: the events, the deadlines, the run's end. Pure, no I/O.

The handlers decide (`logic`), apply the decision to the run by compare-and-set (`store`),
then carry out the `Effects` computed here: deadlines first (before the transition, so a
crash never leaves a dispatched step without one), then the events in order, then the
deadlines that no longer matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from schemas.plan import PlanNode, RunStep, StepProgressed, WorkflowCompleted, WorkflowFailed
from services.dispatcher.logic import Deadline, Decision, plan_event_id
from state.run import RunView

Ending = Literal["completed", "failed"]
Status = Literal["dispatched", "completed", "retrying"]


@dataclass(frozen=True)
class Effects:
    """Everything one applied decision does, in the order it is done."""

    events: tuple[RunStep | StepProgressed, ...] = ()  # published in this order
    clear: tuple[Deadline, ...] = ()  # deadlines that no longer matter, dropped after the events
    ending: Ending | None = None  # the run ends: the session leaves executing this way
    reason: str = ""  # why it failed (a fresh failure; an announcement reads the stored one)
    repeat: bool = False  # an announcement of a run that had already ended


def next_deadline(session_id: str, seen: RunView, decision: Decision) -> Deadline | None:
    """The deadline of the attempt a decision dispatches, registered before the transition."""
    if decision.action == "advance" and seen.cursor + 1 < seen.total:
        return Deadline(session_id, seen.plan_id, seen.cursor + 1, 1)
    if decision.action == "retry":
        return Deadline(session_id, seen.plan_id, seen.cursor, decision.attempt)
    return None


def of(session_id: str, decision: Decision, seen: RunView, nodes: list[PlanNode]) -> Effects:
    """The effects of an applied decision (an ignored one has none)."""
    current = Deadline(session_id, seen.plan_id, seen.cursor, seen.step_attempt)
    if decision.action == "advance":
        done = progressed(session_id, seen.plan_id, nodes, seen.cursor, seen.step_attempt)
        if seen.cursor + 1 < seen.total:
            nxt = dispatched(session_id, seen.plan_id, nodes, seen.cursor + 1, 1)
            return Effects(events=(done, *nxt), clear=(current,))
        return Effects(events=(done,), clear=(current,), ending="completed")
    if decision.action == "retry":
        again = dispatched(session_id, seen.plan_id, nodes, seen.cursor, decision.attempt)
        return Effects(events=again, clear=(current,))
    if decision.action == "fail":
        return Effects(clear=(current,), ending="failed", reason=decision.reason)
    if decision.action == "resend":  # the same request (same event ids) as the advance sent
        return Effects(events=dispatched(session_id, seen.plan_id, nodes, seen.cursor, 1))
    if decision.action == "announce":
        return Effects(ending="completed" if seen.state == "completed" else "failed", repeat=True)
    return Effects()


def dispatched(
    session_id: str, plan_id: str, nodes: list[PlanNode], index: int, attempt: int
) -> tuple[RunStep, StepProgressed]:
    """RunStep for one node's runner, and the progress the user sees for it."""
    command = RunStep(
        event_id=plan_event_id(plan_id, "RunStep", index, attempt),
        session_id=session_id,
        plan_id=plan_id,
        node_index=index,
        node=nodes[index],
        attempt=attempt,
    )
    status: Status = "dispatched" if attempt == 1 else "retrying"
    return command, progressed(session_id, plan_id, nodes, index, attempt, status)


def progressed(
    session_id: str,
    plan_id: str,
    nodes: list[PlanNode],
    index: int,
    attempt: int,
    status: Status = "completed",
) -> StepProgressed:
    """One StepProgressed for the user's progress stream."""
    node = nodes[index]
    return StepProgressed(
        event_id=plan_event_id(plan_id, "StepProgressed", index, attempt, status),
        session_id=session_id,
        node_index=index,
        total=len(nodes),
        node_id=node.node_id,
        runner=node.runner,
        status=status,
    )


def completed(
    session_id: str, plan_id: str, summary: dict[str, Any], saved_id: str | None
) -> WorkflowCompleted:
    """The run's end for the user: the summarizer's text and the saved workflow's id."""
    return WorkflowCompleted(
        event_id=plan_event_id(plan_id, "WorkflowCompleted"),
        session_id=session_id,
        workflow_id=str(summary.get("workflow_id") or saved_id or "unknown"),
        summary=str(summary.get("summary", "")),
    )


def failed(session_id: str, plan_id: str, reason: str) -> WorkflowFailed:
    """The run's failure for the user (the same event id however often it is announced)."""
    return WorkflowFailed(
        event_id=plan_event_id(plan_id, "WorkflowFailed"), session_id=session_id, reason=reason
    )
