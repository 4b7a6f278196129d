"""Step runner handlers: run the requested step of a plan and report how it went."""

from __future__ import annotations

import asyncio

from faststream import Context
from prometheus_client import Counter, Histogram

from schemas.plan import RunStep, StepCompleted
from services.specialist import runtime
from services.specialist.step import Deps, StepFailed
from shared.handling import handles

STEPS_RUN = Counter(
    "planwire_steps_run_total",
    "Steps a runner executed, by runner and outcome.",
    ["runner", "outcome"],
)
STEP_SECONDS = Histogram(
    "planwire_step_seconds", "Time a runner took to execute one step.", ["runner"]
)


@handles("specialist")
async def on_run_step(command: RunStep, deps: Deps = Context()) -> None:
    """Run one step of a plan, write its artifact, and publish StepCompleted (ok or failed)."""
    if await deps.store.step_settled(command.session_id, command.plan_id, command.node_index):
        return  # a re-request that crossed the completion of an earlier attempt
    stored = await deps.store.produced(command.session_id, command.plan_id, command.node_index)
    version, error = (stored, None) if stored is not None else await execute(command, deps)
    out = StepCompleted.caused_by(
        command,
        plan_id=command.plan_id,
        node_index=command.node_index,
        node_id=command.node.node_id,
        attempt=command.attempt,
        status="ok" if error is None else "failed",
        artifact_version=version,
        error=error,
    )
    await deps.completed.publish(out, key=out.key())


async def execute(command: RunStep, deps: Deps) -> tuple[int | None, str | None]:
    """Run the step once: its artifact version, or the error the user reads."""
    await deps.store.count_execution(command.session_id, command.node.node_id)
    await asyncio.sleep(deps.delay_s)
    try:
        with STEP_SECONDS.labels(command.node.runner).time():
            version, error = await runtime.run_step(command, deps), None
    except StepFailed as exc:
        version, error = None, str(exc)[:1000]
    STEPS_RUN.labels(command.node.runner, "ok" if error is None else "failed").inc()
    return version, error
