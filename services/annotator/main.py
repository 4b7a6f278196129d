"""Annotator service: the one wiring point (settings, topics, dependencies)."""

from __future__ import annotations

from catalogue import load_catalogue
from schemas.topics import CONTEXT_TRIMMED, NOTES_UPDATED, REPLY_CLASSIFIED, REQUIREMENTS_CONFIRMED
from schemas.turn import NotesUpdated
from services.annotator import handlers
from services.annotator.store import NotesStore
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Annotator settings; the threshold is the confidence that asks for confirmation."""

    ready_threshold: float = 0.8


settings = Settings()
service = Service("annotator", settings, description="The shadow annotator: accumulating notes per turn.", model=recorded_model)
published = service.publisher(NOTES_UPDATED, NotesUpdated, "Notes after a turn.")
service.subscribe(handlers.on_context_trimmed, CONTEXT_TRIMMED, group="annotator.turns")
service.subscribe(handlers.on_reply_classified, REPLY_CLASSIFIED, group="annotator.amends")
service.subscribe(handlers.on_requirements_confirmed, REQUIREMENTS_CONFIRMED, group="annotator.confirmed")


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis, store=NotesStore(opened.redis, settings.session_ttl_s), model=opened.model, catalogue=load_catalogue(),
        published=published, threshold=settings.ready_threshold, dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
