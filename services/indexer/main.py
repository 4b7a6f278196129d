"""Indexer service: the one wiring point (settings, dependencies; topics in planwire/topology.py)."""

from __future__ import annotations

from catalogue import load_catalogue
from planwire import topology
from services.indexer import handlers, logic
from services.indexer.store import OutlineStore
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Indexer settings: the bounds code keeps the tree within."""

    index_topic_turns: int = 20
    index_phase_turns: int = 80


settings = Settings()
service = Service.declared(
    topology.node("indexer"), settings, handlers=handlers, model=recorded_model
)


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis,
        store=OutlineStore(opened.redis, settings.session_ttl_s),
        model=opened.model,
        catalogue=load_catalogue(),
        limits=logic.Limits(settings.index_topic_turns, settings.index_phase_turns),
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
