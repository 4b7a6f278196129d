"""Trimmer service: the one wiring point (settings, topics, dependencies)."""

from __future__ import annotations

from schemas.topics import CONTEXT_TRIMMED, REPLY_GENERATED, TURN_RECEIVED
from schemas.turn import ContextTrimmed
from services.trimmer import handlers
from services.trimmer.store import TranscriptStore
from shared.service import Opened, Service
from shared.settings import InfraSettings


class Settings(InfraSettings):
    """Trimmer settings; the budget is in tokens of the kept history."""

    trim_budget_tokens: int = 1500


settings = Settings()
service = Service("trimmer", settings, description="Keeps the transcript and trims it to whole change units.")
trimmed = service.publisher(CONTEXT_TRIMMED, ContextTrimmed, "The trimmed context of a turn.")
service.subscribe(handlers.on_turn_received, TURN_RECEIVED, group="trimmer.turns")
service.subscribe(handlers.on_reply_generated, REPLY_GENERATED, group="trimmer.replies")


def deps(opened: Opened) -> handlers.Deps:
    """What the handlers need, once Redis is open."""
    return handlers.Deps(
        redis=opened.redis, store=TranscriptStore(opened.redis, settings.session_ttl_s), trimmed=trimmed,
        budget_tokens=settings.trim_budget_tokens, dedupe_ttl_s=settings.dedupe_ttl_s,
    )


app = service.app(deps)

if __name__ == "__main__":
    service.serve(app)
