"""Planner service: the one wiring point (settings, broker, subscriptions, ASGI app)."""

from __future__ import annotations

from contextlib import asynccontextmanager

from faststream import ContextRepo

from catalogue import load_catalogue
from schemas.plan import PlanCompiled
from schemas.topics import PLAN_COMPILED, REQUIREMENTS_CONFIRMED
from services.planner import handlers
from services.planner.store import PlanStore
from shared.app import build_app, serve
from shared.bus import consumer_options, make_broker
from shared.model import ModelSettings, build_model
from shared.model.usage import UsageRecordingModel
from shared.redis import make_redis
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Planner settings."""


settings = Settings()
broker = make_broker(settings, client_id="planner")
compiled = broker.publisher(PLAN_COMPILED.name, schema=PlanCompiled, description="The compiled plan of a session.")
broker.subscriber(REQUIREMENTS_CONFIRMED.name, **consumer_options(settings, "planner.confirmed"))(handlers.on_requirements_confirmed)


@asynccontextmanager
async def lifespan(context: ContextRepo):
    """Open Redis and the model for the handlers; close both on the way out."""
    redis = make_redis(settings.redis_url)
    model = UsageRecordingModel(build_model(settings), redis)
    deps = handlers.Deps(redis, PlanStore(redis, settings.session_ttl_s), model, load_catalogue(), compiled, settings.dedupe_ttl_s)
    context.set_global("deps", deps)
    yield
    await model.aclose()
    await redis.aclose()


app = build_app(broker, title="planwire planner", description="Compiles the whole plan once requirements are confirmed.", lifespan=lifespan)

if __name__ == "__main__":
    serve(app, settings)
