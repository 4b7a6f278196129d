"""Indexer service: the one wiring point (settings; topics in schemas/topology.py; `Deps` autowired, the catalogue given)."""

from __future__ import annotations

from catalog import Catalogue, load_catalogue
from catalog.structure import warm
from schemas import topology
from services.indexer import handlers, logic
from shared.model.service import ModelService, ModelServiceSettings


class Settings(ModelServiceSettings):
    """Indexer settings: the bounds code keeps the tree within."""

    index_topic_turns: int = 20
    index_phase_turns: int = 80


warm()  # titles read the messages' apps by their parse; load it before the first turn
settings = Settings()
service = ModelService.declared(
    topology.node("indexer"), settings, handlers=handlers, provides={Catalogue: load_catalogue}
)
app = service.app(limits=logic.Limits(settings.index_topic_turns, settings.index_phase_turns))

if __name__ == "__main__":
    service.serve(app)
