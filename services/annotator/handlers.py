"""Annotator handlers: fold each gathering turn into the notes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from faststream import Context

from catalog import Catalogue, find_mentions
from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from schemas.turn import ContextTrimmed, Notes, NotesUpdated, Phase
from services.annotator import logic, prompt, recall
from services.annotator.store import NotesStore
from shared.handling import HandlerDeps, handles
from shared.metrics import record_overrides
from shared.model import ModelPort
from shared.policy import naive
from shared.wiring import Publisher, Setting

CAS_ATTEMPTS = 5


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need; the service kit fills each field (shared.wiring)."""

    store: NotesStore
    model: ModelPort
    catalogue: Catalogue
    published: Publisher[NotesUpdated]
    threshold: Annotated[float, Setting("ready_threshold")]
    claims: Annotated[bool, Setting("model_extra_claims")] = True


@handles("annotator", claim=lambda event: event.phase == Phase.GATHERING)
async def on_context_trimmed(event: ContextTrimmed, deps: Deps = Context()) -> None:
    """Annotate a turn that arrived while gathering requirements."""
    if event.phase != Phase.GATHERING:
        return
    await annotate(event, deps)


@handles("annotator", claim=lambda event: event.verdict == "amend")
async def on_reply_classified(event: ReplyClassified, deps: Deps = Context()) -> None:
    """An amend during confirmation re-enters gathering through the annotator."""
    if event.verdict != "amend":
        return
    await annotate(event.context, deps, amending=True)


@handles("annotator", claim=False)  # a compare-and-set of `ready`: idempotent
async def on_requirements_confirmed(event: RequirementsConfirmed, deps: Deps = Context()) -> None:
    """Record in the notes that the user confirmed them."""
    for _ in range(CAS_ATTEMPTS):
        notes = await deps.store.get(event.session_id)
        if notes.ready or await deps.store.put(
            event.session_id,
            notes.model_copy(update={"ready": True, "version": notes.version + 1}),
            notes.version,
        ):
            return


async def annotate(context: ContextTrimmed, deps: Deps, amending: bool = False) -> None:
    """Ask the model once, fold under code's rules, compare-and-set, publish NotesUpdated.

    A conflicting write refolds the same proposal onto the newer notes rather than asking
    again, so a turn costs at most one model call (with its retries): the handler's worst
    case stays far under the consumer's max_poll_interval (tests/unit/test_budgets.py).
    """
    previous = await deps.store.latest(context.session_id)  # a lost race reads (below)
    view = await propose(previous, context, deps)
    for attempt in range(CAS_ATTEMPTS):
        if attempt:
            previous = await deps.store.get(context.session_id)
        folded = logic.fold(
            previous,
            context.user_text,
            view,
            deps.catalogue,
            deps.threshold,
            context.turn_id,
            before=logic.previous_user_text(context.messages),
            history=context.messages,
            amending=amending,
        )
        if await deps.store.put(context.session_id, folded.notes, previous.version):
            break
    else:
        raise RuntimeError(f"notes of {context.session_id} kept changing under the annotator")
    record_overrides("annotator", folded.overrides)
    out = NotesUpdated.caused_by(
        context,
        notes=folded.notes,
        ready_for_confirmation=folded.ready_for_confirmation,
        context=context,
        previous=previous,  # what the reply's "Added: ..." compares with; no store read there
    )
    await deps.published.publish(out, key=out.key())


async def propose(previous: Notes, context: ContextTrimmed, deps: Deps) -> logic.ModelView:
    """The model's proposal for this turn; an empty proposal when it is not available."""
    last_reply = next((m.text for m in reversed(context.messages) if m.role == "assistant"), "")
    mentions = find_mentions(context.user_text, deps.catalogue)  # parsed once for the turn
    if naive():  # the whole history as chat turns, every call (shared/policy.py)
        earlier, history = "", prompt.history_turns(context.messages, context.turn_id)
    else:
        earlier, history = await recall.earlier_block(deps.redis, context, mentions), []
    messages = [
        {"role": "system", "content": prompt.system_prompt(deps.catalogue, deps.claims)},
        *history,
        {
            "role": "user",
            "content": earlier + prompt.user_prompt(previous, last_reply, context.user_text),
        },
    ]
    referenced = len(mentions)
    result = await deps.model.structured(
        "annotator",
        messages,
        prompt.output_schema(deps.catalogue, referenced, deps.claims),
        fallback=dict,
        max_tokens=prompt.max_tokens(referenced, deps.claims),
    )
    return view_from(result.data)


def quoted_pairs(items: object) -> tuple[tuple[str, str], ...]:
    """(id, evidence) pairs from the model's list, skipping anything malformed."""
    pairs = items if isinstance(items, list) else []
    return tuple(
        (str(p.get("id", "")), str(p.get("evidence", ""))) for p in pairs if isinstance(p, dict)
    )


def view_from(data: dict[str, Any]) -> logic.ModelView:
    """Read the model's JSON into a ModelView, tolerating missing fields."""
    apps = data.get("apps", ())
    verdicts = [a for a in apps if isinstance(a, dict)] if isinstance(apps, list) else []

    def of(role: str) -> tuple[tuple[str, str], ...]:
        return quoted_pairs([a for a in verdicts if a.get("role") == role])

    return logic.ModelView(
        summary=str(data.get("requirement_summary", "")),
        mentions=of("wanted"),
        removals=of("turned_down"),
        context=of("context"),
        confidence=data.get("confidence_score"),
        hints=tuple(str(h) for h in data.get("hints", ())),
        uses=tuple((str(a.get("id", "")), str(a["use"])) for a in verdicts if a.get("use")),
        links=fields(data.get("links"), "from", "to", "evidence"),
        stated=fields(data.get("values"), "id", "text", "evidence", "field"),
        conditions=fields(data.get("conditions"), "field", "operator", "value", "evidence"),
    )


def fields(items: object, *names: str) -> tuple[tuple[str, ...], ...]:
    """The named fields of each object in the model's list, skipping anything malformed."""
    found = items if isinstance(items, list) else []
    return tuple(tuple(str(p.get(n, "")) for n in names) for p in found if isinstance(p, dict))
