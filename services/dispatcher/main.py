"""Dispatcher service: the one wiring point (settings, broker, subscriptions, sweep, ASGI app)."""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import asynccontextmanager

from faststream import ContextRepo

from schemas.plan import StepProgressed, WorkflowCompleted, WorkflowFailed
from schemas.topics import PLAN_COMPILED, STEP_COMPLETED, STEP_PROGRESSED, WORKFLOW_COMPLETED, WORKFLOW_FAILED
from services.dispatcher import handlers
from services.dispatcher.store import RunStore
from services.dispatcher.sweeper import run_sweeper
from shared.app import build_app, serve
from shared.bus import consumer_options, make_broker
from shared.redis import make_redis
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
broker = make_broker(settings, client_id="dispatcher")
progressed = broker.publisher(STEP_PROGRESSED.name, schema=StepProgressed, description="Progress of a plan's steps.")
completed = broker.publisher(WORKFLOW_COMPLETED.name, schema=WorkflowCompleted, description="A workflow was built.")
failed = broker.publisher(WORKFLOW_FAILED.name, schema=WorkflowFailed, description="A workflow could not be built.")
broker.subscriber(PLAN_COMPILED.name, **consumer_options(settings, "dispatcher.plans"))(handlers.on_plan_compiled)
broker.subscriber(STEP_COMPLETED.name, **consumer_options(settings, "dispatcher.steps"))(handlers.on_step_completed)


@asynccontextmanager
async def lifespan(context: ContextRepo):
    """Open Redis, start the deadline sweep; stop both on the way out."""
    redis = make_redis(settings.redis_url)
    deps = handlers.Deps(
        redis, RunStore(redis, settings.session_ttl_s), broker, progressed, completed, failed,
        settings.step_timeout_s, settings.step_attempts, settings.dedupe_ttl_s,
    )
    context.set_global("deps", deps)
    sweep = asyncio.create_task(
        run_sweeper(deps, interval_s=settings.sweep_interval_s, lease_s=settings.sweep_lease_s, batch=settings.sweep_batch)
    )
    yield
    sweep.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sweep
    await redis.aclose()


app = build_app(broker, title="planwire dispatcher", description="Walks each compiled plan step by step; no model.", lifespan=lifespan)

if __name__ == "__main__":
    serve(app, settings)
