"""Conversation service: the one wiring point (settings, topics, dependencies)."""

from __future__ import annotations

from catalogue import load_catalogue
from schemas.topics import NOTES_UPDATED, REPLY_CLASSIFIED, REPLY_GENERATED
from schemas.turn import ReplyGenerated
from services.conversation import handlers
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Conversation settings."""


settings = Settings()
service = Service("conversation", settings, description="Talks to the user: questions and the confirmation summary.", model=recorded_model)
replies = service.publisher(REPLY_GENERATED, ReplyGenerated, "What planwire says to the user.")
service.subscribe(handlers.on_notes_updated, NOTES_UPDATED, group="conversation.notes")
service.subscribe(handlers.on_reply_classified, REPLY_CLASSIFIED, group="conversation.classified")


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(redis=opened.redis, model=opened.model, catalogue=load_catalogue(), replies=replies, dedupe_ttl_s=settings.dedupe_ttl_s)


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
