"""Annotator service: the one wiring point (settings, dependencies; topics in planwire/topology.py)."""

from __future__ import annotations

from catalogue import load_catalogue
from planwire import topology
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
service = Service.declared(
    topology.node("annotator"), settings, handlers=handlers, model=recorded_model
)


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis,
        store=NotesStore(opened.redis, settings.session_ttl_s),
        model=opened.model,
        catalogue=load_catalogue(),
        published=service.publisher_of(NotesUpdated),
        threshold=settings.ready_threshold,
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
