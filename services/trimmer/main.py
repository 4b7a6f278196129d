"""Trimmer service: the one wiring point (settings; topics in schemas/topology.py; `Deps` autowired)."""

from __future__ import annotations

from pydantic import Field

from schemas import topology
from services.trimmer import handlers
from services.trimmer.store import TranscriptStore
from shared.service import Service
from shared.settings import InfraSettings
from shared.wiring import Built


class Settings(InfraSettings):
    """Trimmer settings; the budget is in tokens of the kept history."""

    trim_budget_tokens: int = 1500
    # Turns the stored transcript keeps (older ones are recalled from the indexer's outline).
    transcript_keep_turns: int = Field(default=40, ge=1)


settings = Settings()
service = Service.declared(topology.node("trimmer"), settings, handlers=handlers)
app = service.app(
    store=Built(
        lambda opened: TranscriptStore(
            opened.redis, settings.session_ttl_s, settings.transcript_keep_turns
        )
    )
)

if __name__ == "__main__":
    service.serve(app)
