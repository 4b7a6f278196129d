"""Compiling the plan: pure rules, no I/O.

The model may propose the order of the specialist steps and a per-node instruction; these
rules decide what the plan finally holds: every noted integration and tool gets its
specialist, nothing outside the catalogue or the notes enters, no duplicates; the trigger
first (the schedule, or the app the user described an event in), then what the workflow
reads, what it works out, where it writes, each group in the order the user described. Each specialist step is followed by
its config step; the composer and the fixed region (save, summarizer) are appended by code.
Every correction of the model's proposal is named, so it can be counted.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from catalog import Catalogue
from catalog.operations import AppOperations, operations_for
from schemas.plan import PlanNode
from schemas.turn import Notes, Reference

SCHEDULER = "scheduler"
ROLE_RANK = {"trigger": 1, "source": 1, "processor": 2, "action": 3}
USE_RANK = {"event": 1, "source": 1, "destination": 3}
READ_ACTIONS = ("read", "list", "query", "get", "search", "fetch")
UNSAID = 10**12  # an item with no reference sorts after every one the user placed
MAX_INSTRUCTION_CHARS = 400


@dataclass(frozen=True)
class Proposal:
    """What the model proposed: an order of catalogue ids and an instruction per id."""

    order: tuple[str, ...] = ()
    instructions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Compiled:
    """The plan after code's rules, and the rules that had to repair the proposal."""

    nodes: list[PlanNode]
    repairs: list[str]


def plan_id_for(confirmation_id: uuid.UUID) -> str:
    """One plan per confirmation: a redelivered confirmation compiles the same plan id."""
    return str(uuid.uuid5(confirmation_id, "plan"))


def noted_ids(notes: Notes, catalogue: Catalogue) -> list[str]:
    """The noted integrations and tools that are in the catalogue and not removed, once each."""
    items = [*notes.mentioned_integrations, *notes.mentioned_tools]
    removed = set(notes.removed)
    return list(
        dict.fromkeys(i for i in items if catalogue.get(i) is not None and i not in removed)
    )


def wanted_refs(notes: Notes) -> dict[str, Reference]:
    """The notes' references of wanted apps, by id."""
    return {r.id: r for r in notes.references if r.role == "wanted"}


def trigger_of(notes: Notes, catalogue: Catalogue) -> str | None:
    """What starts the workflow: the schedule when there is one; else the first app the user
    described an event in, else the first they read from, else the first whose catalogue role
    is a trigger and that the user did not describe as a destination; each only if the app
    has an event to start from (catalog/operations.json). None: the user starts it."""
    items = noted_ids(notes, catalogue)
    if SCHEDULER in items:
        return SCHEDULER
    refs = wanted_refs(notes)
    placed = sorted(items, key=lambda i: refs[i].at if i in refs else UNSAID)
    use = {i: refs[i].use if i in refs else None for i in placed}
    apps = [i for i in placed if catalogue[i].kind == "integration"]
    tests = (
        lambda i: use[i] == "event",
        lambda i: use[i] == "source",
        lambda i: catalogue[i].role == "trigger" and use[i] != "destination",
        # Nothing said where the data comes from: the first app the user described, when
        # another app is left to receive the results.
        lambda i: len(apps) > 1 and i == apps[0],
    )
    for test in tests:
        for item in placed:
            if test(item) and operations_for(item).events:
                return item
    return None


def rank(item: str, catalogue: Catalogue, notes: Notes | None = None) -> tuple[int, int]:
    """Where a step goes: the trigger first, then what the workflow reads, what it works out,
    where it writes; within each, the order the user described them in."""
    refs = wanted_refs(notes) if notes is not None else {}
    ref = refs.get(item)
    if (notes is not None and item == trigger_of(notes, catalogue)) or item == SCHEDULER:
        group = 0
    elif catalogue[item].kind == "tool":
        group = 2
    elif ref is not None and ref.use is not None:
        group = USE_RANK[ref.use]
    elif ref is not None and notes is not None:
        group = 1 if ref.at < first_tool_at(notes, catalogue) else 3  # as the user told it
    else:
        group = ROLE_RANK.get(catalogue[item].role, 2)
    return group, ref.at if ref is not None else UNSAID


def first_tool_at(notes: Notes, catalogue: Catalogue) -> int:
    """Where the user first described a step that works on the data (UNSAID if none)."""
    tools = [
        r.at
        for r in wanted_refs(notes).values()
        if (e := catalogue.get(r.id)) is not None and e.kind == "tool" and r.id != SCHEDULER
    ]
    return min(tools, default=UNSAID)


def operation_of(item: str, notes: Notes, catalogue: Catalogue) -> str | None:
    """The event the trigger starts on, or the action a step performs: reading where the user
    reads from the app, the app's default action otherwise."""
    ops: AppOperations = operations_for(item)
    if item == trigger_of(notes, catalogue):
        return ops.default_event
    if rank(item, catalogue, notes)[0] == 1:  # read from, as the user told it
        # An app with no read action is read by its event: what is new since the last run.
        reading = [a.id for a in ops.actions if a.id.startswith(READ_ACTIONS)]
        return reading[0] if reading else ops.default_event or ops.default_action
    return ops.default_action


def heuristic_proposal(notes: Notes, catalogue: Catalogue) -> dict[str, Any]:
    """The rule-made proposal (the model port's fallback): the described order, templates."""
    items = sorted(noted_ids(notes, catalogue), key=lambda i: rank(i, catalogue, notes))
    return {
        "order": items,
        "instructions": [
            {"id": i, "text": specialist_instruction(i, notes, catalogue)} for i in items
        ],
    }


def specialist_instruction(item: str, notes: Notes, catalogue: Catalogue) -> str:
    """The template instruction for a specialist step."""
    entry = catalogue[item]
    goal = notes.requirement_summary or "the automation the user described"
    return f"Configure {entry.name} ({entry.role}) for this automation: {goal}"[
        :MAX_INSTRUCTION_CHARS
    ]


def accepted(
    order: tuple[str, ...], required: list[str], catalogue: Catalogue
) -> tuple[list[str], list[str]]:
    """The proposed ids that may enter the plan, once each, and the repairs for the rest."""
    kept: list[str] = []
    repairs: list[str] = []
    for item in order:
        if catalogue.get(item) is None:
            repairs.append("not_in_catalogue")
        elif item not in required:
            repairs.append("not_noted")
        elif item in kept:
            repairs.append("duplicate")
        else:
            kept.append(item)
    return kept, repairs


def enforce(proposal: Proposal, notes: Notes, catalogue: Catalogue) -> tuple[list[str], list[str]]:
    """The specialist order after code's rules, and the repairs that took."""
    required = noted_ids(notes, catalogue)
    kept, repairs = accepted(proposal.order, required, catalogue)
    group = lambda i: rank(i, catalogue, notes)[0]  # noqa: E731
    by_rank = sorted(kept, key=group)  # stable: the model's order within a group
    if by_rank != kept:
        repairs.append("ordering")
    missing = [i for i in required if i not in kept]
    repairs.extend("missing_specialist" for _ in missing)
    return sorted(by_rank + missing, key=group), repairs


def compile_plan(proposal: Proposal, notes: Notes, catalogue: Catalogue) -> Compiled:
    """The whole plan: specialist and config per item, then composer, save, summarizer."""
    order, repairs = enforce(proposal, notes, catalogue)
    nodes: list[PlanNode] = []
    for item in order:
        text = proposal.instructions.get(item, "").strip()[:MAX_INSTRUCTION_CHARS]
        nodes.append(
            PlanNode(
                kind="specialist",
                node_id=item,
                runner=item,
                specialist=item,
                instructions=text or specialist_instruction(item, notes, catalogue),
                operation=operation_of(item, notes, catalogue),
            )
        )
        nodes.append(
            PlanNode(
                kind="config",
                node_id=f"{item}.config",
                runner=item,
                specialist=item,
                instructions=config_instruction(item, catalogue),
                operation=operation_of(item, notes, catalogue),
            )
        )
    return Compiled(nodes + fixed_region(), repairs)


def config_instruction(item: str, catalogue: Catalogue) -> str:
    """What a config step does; always the same, code runs it."""
    return f"Normalise the {catalogue[item].name} draft config: fill defaults and validate it against its schema."


def fixed_region() -> list[PlanNode]:
    """Composer, save and summarizer: appended by code to every plan."""
    return [
        PlanNode(
            kind="composer",
            node_id="composer",
            runner="composer",
            instructions="Assemble the workflow document from the config artifacts.",
        ),
        PlanNode(
            kind="save",
            node_id="save",
            runner="save",
            instructions="Persist the workflow document.",
        ),
        PlanNode(
            kind="summarizer",
            node_id="summarizer",
            runner="summarizer",
            instructions="Tell the user what was built, naming every step.",
        ),
    ]


def proposal_from(data: dict[str, Any]) -> Proposal:
    """Read the model's JSON into a Proposal, tolerating missing or odd fields."""
    order = tuple(str(i) for i in data.get("order", ()) if isinstance(i, str))
    pairs = (p for p in data.get("instructions", ()) if isinstance(p, dict))
    return Proposal(order, {str(p.get("id")): str(p.get("text", "")) for p in pairs})
