"""Conversation service: the one wiring point (settings, broker, subscriptions, ASGI app)."""

from __future__ import annotations

from contextlib import asynccontextmanager

from faststream import ContextRepo

from catalogue import load_catalogue
from schemas.topics import NOTES_UPDATED, REPLY_CLASSIFIED, REPLY_GENERATED
from schemas.turn import ReplyGenerated
from services.conversation import handlers
from shared.app import build_app, serve
from shared.bus import consumer_options, make_broker
from shared.model import ModelSettings, build_model
from shared.model.usage import UsageRecordingModel
from shared.redis import make_redis
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Conversation settings."""


settings = Settings()
broker = make_broker(settings, client_id="conversation")
replies = broker.publisher(REPLY_GENERATED.name, schema=ReplyGenerated, description="What planwire says to the user.")
broker.subscriber(NOTES_UPDATED.name, **consumer_options(settings, "conversation.notes"))(handlers.on_notes_updated)
broker.subscriber(REPLY_CLASSIFIED.name, **consumer_options(settings, "conversation.classified"))(handlers.on_reply_classified)


@asynccontextmanager
async def lifespan(context: ContextRepo):
    """Open Redis and the model for the handlers; close both on the way out."""
    redis = make_redis(settings.redis_url)
    model = UsageRecordingModel(build_model(settings), redis)
    context.set_global("deps", handlers.Deps(redis, model, load_catalogue(), replies, settings.dedupe_ttl_s))
    yield
    await model.aclose()
    await redis.aclose()


app = build_app(broker, title="planwire conversation", description="Talks to the user: questions and the confirmation summary.", lifespan=lifespan)

if __name__ == "__main__":
    serve(app, settings)
