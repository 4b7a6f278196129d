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
from catalog.flow import noted_ids, operation_of, ordered, rank, trigger_of
from schemas.plan import PlanNode
from schemas.turn import Notes, Stated

__all__ = ["noted_ids", "operation_of", "rank", "trigger_of"]
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


def heuristic_proposal(notes: Notes, catalogue: Catalogue) -> dict[str, Any]:
    """The rule-made proposal (the model port's fallback): the described order, templates."""
    items = ordered(notes, catalogue)
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
    group = lambda i: rank(i, catalogue, notes)[:2]  # noqa: E731
    by_rank = sorted(kept, key=group)  # stable: the model's order within a group
    missing = [i for i in required if i not in kept]
    repairs.extend("missing_specialist" for _ in missing)
    final = sorted(by_rank + missing, key=group)
    if notes.links:  # the flow the user described, as noted: it decides, not the proposal
        final = ordered(notes, catalogue)
    if [i for i in final if i in kept] != kept:
        repairs.append("ordering")
    return final, repairs


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
                stated=stated_for(item, notes),
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
                stated=stated_for(item, notes),
            )
        )
    return Compiled(nodes + fixed_region(notes), repairs)


def stated_for(item: str, notes: Notes) -> list[Stated]:
    """The values the user stated for the step, as the notes hold them."""
    return [v for v in notes.stated if v.id == item][:12]


def config_instruction(item: str, catalogue: Catalogue) -> str:
    """What a config step does; always the same, code runs it."""
    return f"Normalise the {catalogue[item].name} draft config: fill defaults and validate it against its schema."


def fixed_region(notes: Notes | None = None) -> list[PlanNode]:
    """Composer, save and summarizer: appended by code to every plan. The composer carries
    the conditions a checked model read, for the document's filter steps."""
    return [
        PlanNode(
            kind="composer",
            node_id="composer",
            runner="composer",
            instructions="Assemble the workflow document from the config artifacts.",
            conditions=list(notes.conditions) if notes is not None else [],
            links=list(notes.links) if notes is not None else [],
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
