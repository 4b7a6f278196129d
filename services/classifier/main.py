"""Classifier service: the one wiring point (settings, dependencies; topics in planwire/topology.py)."""

from __future__ import annotations

from catalogue import load_catalogue
from planwire import topology
from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from services.classifier import handlers
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Classifier settings."""


settings = Settings()
service = Service.declared(
    topology.node("classifier"), settings, handlers=handlers, model=recorded_model
)


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis,
        model=opened.model,
        catalogue=load_catalogue(),
        classified=service.publisher_of(ReplyClassified),
        confirmed=service.publisher_of(RequirementsConfirmed),
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
