"""Conversation service: the one wiring point (topics in schemas/topology.py; `Deps` autowired, the catalogue given)."""

from __future__ import annotations

from catalog import Catalogue, load_catalogue
from schemas import topology
from services.conversation import handlers
from shared.model.service import ModelService

service = ModelService.declared(
    topology.node("conversation"), handlers=handlers, provides={Catalogue: load_catalogue}
)
app = service.app()

if __name__ == "__main__":
    service.serve(app)
