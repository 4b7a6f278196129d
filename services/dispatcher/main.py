"""Dispatcher service: the one wiring point (settings, topics, dependencies, the deadline sweep)."""

from __future__ import annotations

from schemas.plan import StepProgressed, WorkflowCompleted, WorkflowFailed
from schemas.topics import PLAN_COMPILED, STEP_COMPLETED, STEP_PROGRESSED, WORKFLOW_COMPLETED, WORKFLOW_FAILED
from services.dispatcher import handlers
from services.dispatcher.store import RunStore
from services.dispatcher.sweeper import sweeping
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings):
    """Dispatcher settings: how long a step may take, how often it is requested, the sweep."""

    step_timeout_s: float = 20.0
    step_attempts: int = 3
    sweep_interval_s: float = 1.0
    # Longer than handling one due deadline takes; a crashed sweeper's claims free up after it.
    sweep_lease_s: float = 30.0
    sweep_batch: int = 100


settings = Settings()
service = Service("dispatcher", settings, description="Walks each compiled plan step by step; no model.")
progressed = service.publisher(STEP_PROGRESSED, StepProgressed, "Progress of a plan's steps.")
completed = service.publisher(WORKFLOW_COMPLETED, WorkflowCompleted, "A workflow was built.")
failed = service.publisher(WORKFLOW_FAILED, WorkflowFailed, "A workflow could not be built.")
service.subscribe(handlers.on_plan_compiled, PLAN_COMPILED, group="dispatcher.plans")
service.subscribe(handlers.on_step_completed, STEP_COMPLETED, group="dispatcher.steps")


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers and the sweep need, once Redis is open."""
    return handlers.Deps(
        redis=opened.redis, store=RunStore(opened.redis, settings.session_ttl_s), broker=service.broker,
        progressed=progressed, completed=completed, failed=failed,
        step_timeout_s=settings.step_timeout_s, max_attempts=settings.step_attempts, dedupe_ttl_s=settings.dedupe_ttl_s,
    )


def sweep(deps: handlers.Deps):
    """The deadline sweep, running as long as the service does."""
    return sweeping(deps, interval_s=settings.sweep_interval_s, lease_s=settings.sweep_lease_s, batch=settings.sweep_batch)


app = service.app(deps, running=sweep)

if __name__ == "__main__":
    service.serve(app)
