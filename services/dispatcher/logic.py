"""The dispatcher's rules: what a step completion or a missed deadline does to a run.

Pure functions, no I/O. The store reads a `RunView`, these rules decide, and the store
applies the decision with a compare-and-set on that same view, so a duplicated, late or
concurrent message can never skip or repeat a step: if the run moved meanwhile, the CAS
fails and the rules decide again on the new view.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Literal

from schemas.plan import PlanNode, StepCompleted
from state.run import RunView  # the run record's view: the rules decide on it

Action = Literal["ignore", "advance", "retry", "fail", "announce", "resend"]
# Fixed namespace for ids derived from a plan: the same step attempt always gets the same id.
_PLAN_NAMESPACE = uuid.UUID("6f1b5a2e-4c1d-5e8a-9b7c-2d3e4f5a6b7c")


@dataclass(frozen=True)
class Decision:
    """What to do; `attempt` is the new attempt of a retry, `reason` explains fail/ignore."""

    action: Action
    index: int = 0
    attempt: int = 0
    reason: str = ""


@dataclass(frozen=True)
class Deadline:
    """A step attempt that must complete by a time; an entry of the global deadline set."""

    session_id: str
    plan_id: str
    index: int
    attempt: int

    def member(self) -> str:
        """The sorted-set member; session ids and plan ids never contain '|'."""
        return f"{self.session_id}|{self.plan_id}|{self.index}|{self.attempt}"

    @classmethod
    def parse(cls, member: str) -> Deadline:
        """Read a member back."""
        session_id, plan_id, index, attempt = member.split("|")
        return cls(session_id, plan_id, int(index), int(attempt))


def on_completion(run: RunView | None, done: StepCompleted, max_attempts: int) -> Decision:
    """Decide what a StepCompleted does; anything not about the current step is ignored."""
    if run is None or run.plan_id != done.plan_id:
        return Decision("ignore", done.node_index, reason="not the session's current plan")
    if run.state != "running":
        return _terminal(run, done.node_index, done.status == "ok" or run.state == "failed")
    if advanced_by(run, done):
        # This completion already moved the cursor; delivered again, the dispatcher may have
        # died before requesting the next step. Ask again now rather than at its deadline:
        # the request's id is derived from the step attempt, so the runner takes it once.
        return Decision("resend", run.cursor)
    if done.node_index != run.cursor or run.step_status != "dispatched":
        return Decision("ignore", done.node_index, reason="not the step under the cursor")
    if done.attempt > run.step_attempt:
        return Decision("ignore", done.node_index, reason="an attempt that was never requested")
    if done.status == "ok":
        # An earlier attempt that finishes late is as good as the newest one: its artifact is
        # valid, and waiting for the re-request would only add a timeout.
        return Decision("advance", run.cursor)
    if done.attempt < run.step_attempt:
        return Decision("ignore", done.node_index, reason="a superseded attempt failed")
    return retry_or_fail(run, max_attempts, done.error or "the step reported a failure")


def advanced_by(run: RunView, done: StepCompleted) -> bool:
    """Whether `done` is the completion that advanced the run to the step now waiting on its
    first request."""
    return (
        done.status == "ok"
        and done.node_index == run.cursor - 1
        and (run.step_attempt, run.step_status) == (1, "dispatched")
    )


def on_deadline(
    run: RunView | None, deadline: Deadline, max_attempts: int, timeout_s: float
) -> Decision:
    """Decide what a missed deadline does: re-request the step, or fail the run."""
    if run is None:
        return Decision("ignore", deadline.index, reason="the step moved on")
    current = (
        run.plan_id == deadline.plan_id
        and run.cursor == deadline.index
        and run.step_attempt == deadline.attempt
    )
    if not current:
        return Decision("ignore", deadline.index, reason="the step moved on")
    if run.state == "failed":
        return Decision("announce", run.cursor)
    if run.state != "running" or run.step_status != "dispatched":
        return Decision("ignore", deadline.index, reason="the step is not waiting")
    return retry_or_fail(run, max_attempts, f"no answer within {timeout_s:g} s")


def first_step_pending(run: RunView | None, plan_id: str) -> bool:
    """True while `plan_id`'s run still waits on the first request of its first step."""
    return (
        run is not None
        and run.plan_id == plan_id
        and run.state == "running"
        and (run.cursor, run.step_attempt, run.step_status) == (0, 1, "dispatched")
    )


def retry_or_fail(run: RunView, max_attempts: int, cause: str) -> Decision:
    """Re-request the step under the cursor while attempts remain, else fail the run."""
    if run.step_attempt < max_attempts:
        return Decision("retry", run.cursor, attempt=run.step_attempt + 1, reason=cause)
    return Decision("fail", run.cursor, reason=cause)


def explain(decision: Decision, run: RunView | None, nodes: list[PlanNode]) -> Decision:
    """Refuse to act without a plan log matching the run; word a failure for the user."""
    if decision.action == "ignore":
        return decision
    if run is None or len(nodes) != run.total:
        return Decision("ignore", decision.index, reason="the plan log does not match the run")
    if decision.action == "fail":
        node = nodes[run.cursor]
        return replace(
            decision,
            reason=failure_reason(node, run.cursor, run.total, run.step_attempt, decision.reason),
        )
    return decision


def _terminal(run: RunView, index: int, relevant: bool) -> Decision:
    """A finished run answers again only for its last step, so a lost announcement recovers."""
    last = run.total - 1 if run.state == "completed" else run.cursor
    if relevant and index == last:
        return Decision("announce", index)
    return Decision("ignore", index, reason=f"the run is {run.state}")


def failure_reason(node: PlanNode, index: int, total: int, attempts: int, cause: str) -> str:
    """The reason the user reads when the run fails."""
    what = f"{node.specialist} {node.kind}" if node.specialist else node.kind
    tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
    return f"Step {index + 1} of {total} ({what}) did not complete after {tries}: {cause}"


def plan_event_id(plan_id: str, name: str, *parts: object) -> uuid.UUID:
    """A deterministic event id for the dispatcher's outputs.

    Each output can be caused by different messages (the plan, a completion, a sweep tick,
    a redelivery), so the id derives from what it is about, not from what caused it:
    every path to the same step attempt yields the same id and consumers dedupe it.
    """
    return uuid.uuid5(_PLAN_NAMESPACE, ":".join((plan_id, name, *map(str, parts))))
