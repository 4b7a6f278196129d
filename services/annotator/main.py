"""Annotator service: the one wiring point (settings, broker, subscriptions, ASGI app)."""

from __future__ import annotations

from contextlib import asynccontextmanager

from faststream import ContextRepo

from catalogue import load_catalogue
from schemas.topics import CONTEXT_TRIMMED, NOTES_UPDATED, REPLY_CLASSIFIED, REQUIREMENTS_CONFIRMED
from schemas.turn import NotesUpdated
from services.annotator import handlers
from services.annotator.store import NotesStore
from shared.app import build_app, serve
from shared.bus import consumer_options, make_broker
from shared.model import ModelSettings, build_model
from shared.model.usage import UsageRecordingModel
from shared.redis import make_redis
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Annotator settings; the threshold is the confidence that asks for confirmation."""

    ready_threshold: float = 0.8


settings = Settings()
broker = make_broker(settings, client_id="annotator")
published = broker.publisher(NOTES_UPDATED.name, schema=NotesUpdated, description="Notes after a turn.")
broker.subscriber(CONTEXT_TRIMMED.name, **consumer_options(settings, "annotator.turns"))(handlers.on_context_trimmed)
broker.subscriber(REPLY_CLASSIFIED.name, **consumer_options(settings, "annotator.amends"))(handlers.on_reply_classified)
broker.subscriber(REQUIREMENTS_CONFIRMED.name, **consumer_options(settings, "annotator.confirmed"))(handlers.on_requirements_confirmed)


@asynccontextmanager
async def lifespan(context: ContextRepo):
    """Open Redis and the model for the handlers; close both on the way out."""
    redis = make_redis(settings.redis_url)
    model = UsageRecordingModel(build_model(settings), redis)
    deps = handlers.Deps(redis, NotesStore(redis, settings.session_ttl_s), model, load_catalogue(), published, settings.ready_threshold, settings.dedupe_ttl_s)
    context.set_global("deps", deps)
    yield
    await model.aclose()
    await redis.aclose()


app = build_app(broker, title="planwire annotator", description="The shadow annotator: accumulating notes per turn.", lifespan=lifespan)

if __name__ == "__main__":
    serve(app, settings)
