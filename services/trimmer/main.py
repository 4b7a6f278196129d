"""Trimmer service: the one wiring point (settings, broker, subscriptions, ASGI app)."""

from __future__ import annotations

from contextlib import asynccontextmanager

from faststream import ContextRepo

from schemas.topics import CONTEXT_TRIMMED, REPLY_GENERATED, TURN_RECEIVED
from schemas.turn import ContextTrimmed
from services.trimmer import handlers
from services.trimmer.store import TranscriptStore
from shared.app import build_app, serve
from shared.bus import consumer_options, make_broker
from shared.redis import make_redis
from shared.settings import InfraSettings


class Settings(InfraSettings):
    """Trimmer settings; the budget is in tokens of the kept history."""

    trim_budget_tokens: int = 1500


settings = Settings()
broker = make_broker(settings, client_id="trimmer")
trimmed = broker.publisher(CONTEXT_TRIMMED.name, schema=ContextTrimmed, description="The trimmed context of a turn.")
broker.subscriber(TURN_RECEIVED.name, **consumer_options(settings, "trimmer.turns"))(handlers.on_turn_received)
broker.subscriber(REPLY_GENERATED.name, **consumer_options(settings, "trimmer.replies"))(handlers.on_reply_generated)


@asynccontextmanager
async def lifespan(context: ContextRepo):
    """Open Redis for the handlers and close it on the way out."""
    redis = make_redis(settings.redis_url)
    store = TranscriptStore(redis, settings.session_ttl_s)
    context.set_global("deps", handlers.Deps(redis, store, trimmed, settings.trim_budget_tokens, settings.dedupe_ttl_s))
    yield
    await redis.aclose()


app = build_app(broker, title="planwire trimmer", description="Keeps the transcript and trims it to whole change units.", lifespan=lifespan)

if __name__ == "__main__":
    serve(app, settings)
