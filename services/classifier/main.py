"""Classifier service: the one wiring point (settings, topics, dependencies)."""

from __future__ import annotations

from catalogue import load_catalogue
from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from schemas.topics import CONTEXT_TRIMMED, REPLY_CLASSIFIED, REQUIREMENTS_CONFIRMED
from services.classifier import handlers
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Classifier settings."""


settings = Settings()
service = Service("classifier", settings, description="Classifies replies to the confirmation summary.", model=recorded_model)
classified = service.publisher(REPLY_CLASSIFIED, ReplyClassified, "Verdict on a confirmation reply.")
confirmed = service.publisher(REQUIREMENTS_CONFIRMED, RequirementsConfirmed, "The user confirmed.")
service.subscribe(handlers.on_context_trimmed, CONTEXT_TRIMMED, group="classifier.turns")


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis, model=opened.model, catalogue=load_catalogue(), classified=classified, confirmed=confirmed,
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
