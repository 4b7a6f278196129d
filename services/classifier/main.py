"""Classifier service: the one wiring point (topics in planwire/topology.py; `Deps` autowired)."""

from __future__ import annotations

from catalog.structure import warm
from planwire import topology
from services.classifier import handlers
from shared.model.service import ModelService

service = ModelService.declared(topology.node("classifier"), handlers=handlers)
app = service.app()
warm()  # the parser reads every turn's sentences; load it before the first one arrives

if __name__ == "__main__":
    service.serve(app)
