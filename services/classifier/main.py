"""Classifier service: the one wiring point (settings, broker, subscriptions, ASGI app)."""

from __future__ import annotations

from contextlib import asynccontextmanager

from faststream import ContextRepo

from catalogue import load_catalogue
from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from schemas.topics import CONTEXT_TRIMMED, REPLY_CLASSIFIED, REQUIREMENTS_CONFIRMED
from services.classifier import handlers
from shared.app import build_app, serve
from shared.bus import consumer_options, make_broker
from shared.model import ModelSettings, build_model
from shared.model.usage import UsageRecordingModel
from shared.redis import make_redis
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Classifier settings."""


settings = Settings()
broker = make_broker(settings, client_id="classifier")
classified = broker.publisher(REPLY_CLASSIFIED.name, schema=ReplyClassified, description="Verdict on a confirmation reply.")
confirmed = broker.publisher(REQUIREMENTS_CONFIRMED.name, schema=RequirementsConfirmed, description="The user confirmed.")
broker.subscriber(CONTEXT_TRIMMED.name, **consumer_options(settings, "classifier.turns"))(handlers.on_context_trimmed)


@asynccontextmanager
async def lifespan(context: ContextRepo):
    """Open Redis and the model for the handlers; close both on the way out."""
    redis = make_redis(settings.redis_url)
    model = UsageRecordingModel(build_model(settings), redis)
    context.set_global("deps", handlers.Deps(redis, model, load_catalogue(), classified, confirmed, settings.dedupe_ttl_s))
    yield
    await model.aclose()
    await redis.aclose()


app = build_app(broker, title="planwire classifier", description="Classifies replies to the confirmation summary.", lifespan=lifespan)

if __name__ == "__main__":
    serve(app, settings)
