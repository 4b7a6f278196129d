"""Classifier handlers: read the user's reply while the session is confirming."""

from __future__ import annotations

from dataclasses import dataclass

from faststream import Context

from catalog import Catalogue
from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from schemas.turn import ContextTrimmed, Notes, Phase
from services.classifier import logic, prompt, store
from shared.handling import HandlerDeps, handles
from shared.metrics import record_overrides
from shared.model import ModelPort
from shared.model.quoting import quoted_user_text
from shared.wiring import Publisher


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need; the service kit fills each field (shared.wiring)."""

    model: ModelPort
    catalogue: Catalogue
    classified: Publisher[ReplyClassified]
    confirmed: Publisher[RequirementsConfirmed]


@handles("classifier", claim=lambda event: event.phase == Phase.CONFIRMING)
async def on_context_trimmed(event: ContextTrimmed, deps: Deps = Context()) -> None:
    """Classify a reply to the confirmation summary and move the phase accordingly."""
    if event.phase != Phase.CONFIRMING:
        return
    notes = await store.read_notes(deps.redis, event.session_id)
    verdict, rule = await classify(event, notes, deps)
    out = ReplyClassified.caused_by(event, verdict=verdict, rule=rule, context=event)
    await deps.classified.publish(out, key=out.key())
    if verdict == "confirmed":
        done = RequirementsConfirmed.caused_by(
            event, notes=notes.model_copy(update={"ready": True})
        )
        await deps.confirmed.publish(done, key=done.key())


async def classify(event: ContextTrimmed, notes: Notes, deps: Deps) -> tuple[str, str | None]:
    """The verdict recorded with its phase move; a redelivery reuses the first run's verdict."""
    event_id = str(event.event_id)
    if recorded := await store.verdict_of(deps.redis, event.session_id, event_id):
        return recorded, None
    proposed = await propose(event, deps)
    verdict, rule = logic.override(event.user_text, notes, deps.catalogue, proposed)
    record_overrides("classifier", [rule] if rule else [])
    stands = await store.record_verdict(
        deps.redis, event.session_id, event_id, verdict, deps.dedupe_ttl_s
    )
    return stands, rule if stands == verdict else None


async def propose(event: ContextTrimmed, deps: Deps) -> str:
    """The model's verdict, or the rule's when the model is not available."""
    text = event.user_text
    messages = [
        {"role": "system", "content": prompt.SYSTEM},
        {"role": "user", "content": quoted_user_text(text[:600])},
    ]
    result = await deps.model.structured(
        "classifier",
        messages,
        prompt.SCHEMA,
        fallback=lambda: {"verdict": logic.heuristic_verdict(text)},
        max_tokens=20,
    )
    return str(result.data.get("verdict", ""))
