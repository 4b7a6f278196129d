"""Trimmer service: the one wiring point (settings, dependencies; topics in planwire/topology.py)."""

from __future__ import annotations

from pydantic import Field

from planwire import topology
from schemas.turn import ContextTrimmed
from services.trimmer import handlers
from services.trimmer.store import TranscriptStore
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings):
    """Trimmer settings; the budget is in tokens of the kept history."""

    trim_budget_tokens: int = 1500
    # Turns the stored transcript keeps (older ones are recalled from the indexer's outline).
    transcript_keep_turns: int = Field(default=40, ge=1)


settings = Settings()
service = Service.declared(topology.node("trimmer"), settings, handlers=handlers)


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis is open."""
    return handlers.Deps(
        redis=opened.redis,
        store=TranscriptStore(opened.redis, settings.session_ttl_s, settings.transcript_keep_turns),
        trimmed=service.publisher_of(ContextTrimmed),
        budget_tokens=settings.trim_budget_tokens,
        dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
