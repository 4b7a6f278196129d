"""Planner service: the one wiring point (settings, topics, dependencies)."""

from __future__ import annotations

from catalogue import load_catalogue
from schemas.plan import PlanCompiled
from schemas.topics import PLAN_COMPILED, REQUIREMENTS_CONFIRMED
from services.planner import handlers
from services.planner.store import PlanStore
from shared.model import ModelSettings
from shared.model.usage import recorded_model
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings, ModelSettings):
    """Planner settings."""


settings = Settings()
service = Service("planner", settings, description="Compiles the whole plan once requirements are confirmed.", model=recorded_model)
compiled = service.publisher(PLAN_COMPILED, PlanCompiled, "The compiled plan of a session.")
service.subscribe(handlers.on_requirements_confirmed, REQUIREMENTS_CONFIRMED, group="planner.confirmed")


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis and the model are open."""
    return handlers.Deps(
        redis=opened.redis, store=PlanStore(opened.redis, settings.session_ttl_s), model=opened.model, catalogue=load_catalogue(),
        compiled=compiled, dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
