"""Planner service: the one wiring point (settings, dependencies; topics in planwire/topology.py)."""

from __future__ import annotations

from catalogue import load_catalogue
from planwire import topology
from schemas.plan import PlanCompiled
from services.planner import handlers
from services.planner.store import PlanStore
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Planner settings."""


settings = Settings()
service = Service.declared(
    topology.node("planner"), settings, handlers=handlers, model=recorded_model
)


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis,
        store=PlanStore(opened.redis, settings.session_ttl_s),
        model=opened.model,
        catalogue=load_catalogue(),
        compiled=service.publisher_of(PlanCompiled),
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
