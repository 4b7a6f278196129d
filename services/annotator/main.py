"""Annotator service: the one wiring point (settings; topics in schemas/topology.py; `Deps` autowired, the catalogue given)."""

from __future__ import annotations

from catalog import Catalogue, load_catalogue
from catalog.structure import warm
from schemas import topology
from services.annotator import handlers
from shared.model.service import ModelService, ModelServiceSettings


class Settings(ModelServiceSettings):
    """Annotator settings; the threshold is the confidence that asks for confirmation."""

    ready_threshold: float = 0.8


service = ModelService.declared(
    topology.node("annotator"), Settings(), handlers=handlers, provides={Catalogue: load_catalogue}
)
app = service.app()
warm()  # the parser reads every turn's sentences; load it before the first one arrives

if __name__ == "__main__":
    service.serve(app)
