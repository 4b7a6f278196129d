"""Classifier service: the one wiring point (topics in schemas/topology.py; `Deps` autowired, the catalogue given)."""

from __future__ import annotations

from catalog import Catalogue, load_catalogue
from catalog.structure import warm
from schemas import topology
from services.classifier import handlers
from shared.model.service import ModelService

service = ModelService.declared(
    topology.node("classifier"), handlers=handlers, provides={Catalogue: load_catalogue}
)
app = service.app()
warm()  # the parser reads every turn's sentences; load it before the first one arrives

if __name__ == "__main__":
    service.serve(app)
