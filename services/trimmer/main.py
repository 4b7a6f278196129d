"""Trimmer service: the one wiring point (settings, dependencies; topics in planwire/topology.py)."""

from __future__ import annotations

from planwire import topology
from schemas.turn import ContextTrimmed
from services.trimmer import handlers
from services.trimmer.store import TranscriptStore
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings):
    """Trimmer settings; the budget is in tokens of the kept history."""

    trim_budget_tokens: int = 1500


settings = Settings()
service = Service.declared(topology.node("trimmer"), settings, handlers=handlers)


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis is open."""
    return handlers.Deps(
        redis=opened.redis,
        store=TranscriptStore(opened.redis, settings.session_ttl_s),
        trimmed=service.publisher_of(ContextTrimmed),
        budget_tokens=settings.trim_budget_tokens,
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
