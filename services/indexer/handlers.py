"""Indexer handlers: keep each turn's words, and place every complete batch in the tree."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from faststream import Context
from prometheus_client import Counter

from catalog import Catalogue, detect, find_mentions
from catalog.flow import rank
from schemas.outline import IndexedTurn, Outline
from schemas.turn import TurnReceived
from services.indexer import logic, prompt
from services.indexer.store import OutlineStore
from shared.handling import HandlerDeps, handles
from shared.metrics import record_overrides
from shared.model import ModelPort
from state.outline import decode_turns

CAS_ATTEMPTS = 5
BATCHES = Counter(
    "planwire_indexed_batches_total",
    "Batches of turns placed in a session's outline, by who decided (model, heuristic, code).",
    ["decided_by"],
)


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need besides Redis and the dedupe TTL, built once in main.py."""

    store: OutlineStore
    model: ModelPort
    catalogue: Catalogue
    limits: logic.Limits


# No claim: keeping a turn is a HSETNX and placing a batch a compare-and-set of the tree's
# version, so a redelivered turn changes nothing and publishes nothing; the claim's two
# commands a turn bought no guarantee here (docs/performance.md §23).
@handles("indexer", claim=False)
async def on_turn_received(event: TurnReceived, deps: Deps = Context()) -> None:
    """Keep the turn's words; index every batch of 4 turns that is now complete."""
    turn = IndexedTurn(
        seq=event.turn_seq,
        turn_id=event.turn_id or "",
        text=event.text,
        ids=find_mentions(event.text, deps.catalogue),
    )
    # A batch can only become complete with the arrival of one of its turns: until this
    # turn's batch is all there, nothing needs the tree (read, and decoded, every 4th turn).
    batch = logic.batch_turns((event.turn_seq - 1) // logic.BATCH_TURNS)
    if not await deps.store.add_turn(event.session_id, turn, batch):
        return
    outline, kept = await deps.store.read_raw(event.session_id)
    for _ in range(CAS_ATTEMPTS):
        if not await index_next(event.session_id, deps, outline, kept):
            return
        outline, kept = await deps.store.read_raw(event.session_id)


async def index_next(
    session_id: str, deps: Deps, outline: Outline, kept: Mapping[str, str]
) -> bool:
    """Place the next complete batch of the turns `kept` (JSON by number) on `outline`; False
    when none is waiting (True also after a lost race)."""
    wanted = logic.batch_turns(outline.next_batch)
    batch = logic.pending_batch(outline, decode_turns(kept, only=wanted))
    if batch is None:
        return False
    names = asked_for(batch, deps.catalogue)
    proposal, source = await propose(outline, batch, deps, names)
    placed = logic.place(outline, proposal, batch, deps.limits, source, names)
    if await deps.store.put(session_id, placed.outline, outline.version):
        record_overrides("indexer", placed.overrides)
        BATCHES.labels(placed.outline.phases[-1].topics[-1].actions[-1].decided_by).inc()
    return True


def asked_for(batch: list[IndexedTurn], catalogue: Catalogue) -> dict[str, str]:
    """The apps the batch asks for, by id with their names, roughly in the order the data
    flows (the planner's groups without the notes: read, work out, write; then as named): a
    title names these, not one the user turned down ("leave Discord out")."""
    found: dict[str, tuple[int, int, int]] = {}
    for number, turn in enumerate(batch):
        seen = detect(turn.text, catalogue)
        for i in seen.mentioned:
            found.setdefault(i, (rank(i, catalogue)[0], number, seen.offset(i)))
    return {i: catalogue[i].name for i in sorted(found, key=found.__getitem__)}


async def propose(
    outline: Outline, batch: list[IndexedTurn], deps: Deps, names: dict[str, str]
) -> tuple[logic.Proposal, str]:
    """The model's proposal, or the heuristic's when the model failed twice (or is the rules)."""
    fallback = logic.heuristic(outline, batch, deps.limits, names)
    result = await deps.model.structured(
        "indexer",
        prompt.messages(outline, batch),
        prompt.output_schema(),
        fallback=lambda: {
            "decision": fallback.decision,
            "title": fallback.title,
            "summary": fallback.summary,
        },
        max_tokens=prompt.MAX_TOKENS,
    )
    if result.outcome in ("fallback", "heuristic"):
        return fallback, "heuristic"
    data = result.data
    return logic.Proposal(data["decision"], str(data["title"]), str(data["summary"])), "model"
