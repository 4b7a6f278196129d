"""Trimmer service: the one wiring point (settings; topics in planwire/topology.py; `Deps` autowired)."""

from __future__ import annotations

from planwire import topology
from services.trimmer import handlers
from shared.service import Service
from shared.settings import InfraSettings


class Settings(InfraSettings):
    """Trimmer settings; the budget is in tokens of the kept history."""

    trim_budget_tokens: int = 1500


service = Service.declared(topology.node("trimmer"), Settings(), handlers=handlers)
app = service.app()

if __name__ == "__main__":
    service.serve(app)
