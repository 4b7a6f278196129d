"""Conversation service: the one wiring point (settings, dependencies; topics in planwire/topology.py)."""

from __future__ import annotations

from catalogue import load_catalogue
from planwire import topology
from schemas.turn import ReplyGenerated
from services.conversation import handlers
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Conversation settings."""


settings = Settings()
service = Service.declared(
    topology.node("conversation"), settings, handlers=handlers, model=recorded_model
)


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis,
        model=opened.model,
        catalogue=load_catalogue(),
        replies=service.publisher_of(ReplyGenerated),
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
