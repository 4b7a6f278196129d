"""A saved workflow in words a person knows: each step's app, what it does, the values it was
given and what is left to fill in, and where each step sits in the diagram. Pure, no I/O.

The words are the confirmation's (services/conversation/details.py and summary.py): the
operation's name, "channel #finance", "Only when total over 5000", so the page says what
the user confirmed. tests/unit/test_gateway_steps.py holds the two to the same words.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from catalog import Catalogue
from catalog.n8n.facts import node_facts, where_of
from catalog.n8n.values import OPEN_SUFFIX, is_open, label
from catalog.operations import Operation, Operations
from catalog.values.conditions import OPERATORS
from catalog.values.stated import DICTATED_FIELDS as DICTATED
from catalog.values.stated import WORDING_FIELDS as WORDING
from services.gateway.models import WorkflowEdge

Role = Literal["trigger", "source", "processor", "action", "condition"]


class Setting(BaseModel):
    """One value a step was given."""

    label: str = Field(description="The setting in words, e.g. `channel`.")
    value: str = Field(description="Its value as given, e.g. `#finance` (empty for a switch).")


class StepCard(BaseModel):
    """One step as the page shows it."""

    id: str = Field(description="The node id in the workflow document.")
    number: int | None = Field(
        description="1, 2, … as in the confirmation; null for the "
        "step that starts the workflow and for a condition."
    )
    app: str | None = Field(description="Catalogue id; null for a condition.")
    name: str = Field(description="The app's name, or `Condition`.")
    role: Role
    does: str = Field(description="What it does: the operation's name, or the condition.")
    quote: str | None = Field(description="For a condition, the user's words it reads.")
    values: list[Setting] = Field(description="The values given, wording left out.")
    to_fill: list[str] = Field(description="Settings still to choose, e.g. `spreadsheet`.")
    account: bool = Field(description="It needs an account connected where it runs (n8n).")
    depth: int = Field(description="Its row in the diagram: the longest run of steps before it.")


class WorkflowSteps(BaseModel):
    """The saved workflow in words, for a page."""

    workflow_id: str
    title: str
    steps: list[StepCard]
    edges: list[WorkflowEdge]


def workflow_steps(
    document: dict[str, Any], catalogue: Catalogue, operations: Operations
) -> WorkflowSteps:
    """Every step of a saved document as a card, in the document's order."""
    nodes = document.get("nodes", [])
    edges = [(e["from"], e["to"]) for e in document.get("edges", [])]
    depths = depth_of([n["id"] for n in nodes], edges)
    trigger = (document.get("trigger") or {}).get("node")
    counter = iter(range(1, len(nodes) + 1))
    cards = []
    for node in nodes:
        starts = node["id"] == trigger
        number = None if starts or node.get("kind") == "condition" else next(counter)
        card = condition_card if node.get("kind") == "condition" else app_card
        cards.append(card(node, number, depths[node["id"]], catalogue, operations, starts))
    return WorkflowSteps(
        workflow_id=document["workflow_id"],
        title=document.get("title", ""),
        steps=cards,
        edges=[WorkflowEdge(source=a, target=b) for a, b in edges],
    )


def app_card(
    node: dict[str, Any],
    number: int | None,
    depth: int,
    catalogue: Catalogue,
    operations: Operations,
    starts: bool,
) -> StepCard:
    """An app's step: its operation, the values it was given and those still open."""
    app = node.get("app") or node["specialist"]
    operation = operation_named(operations, app, node.get("operation"))
    config = node.get("config", {})
    return StepCard(
        id=node["id"],
        number=number,
        app=app,
        name=catalogue[app].name if catalogue.get(app) else app,
        role="trigger" if starts else node.get("role") or "action",
        does=operation.name if operation else "",
        quote=None,
        values=[
            s
            for k, v in config.items()
            if (k not in DICTATED or k in node.get("sources", {}))
            and (s := setting(k, v)) is not None
        ],
        to_fill=[still_open(k, v) for k, v in config.items() if is_open(v)],
        account=operation is not None and needs_account(app, operation, operations),
        depth=depth,
    )


def condition_card(node: dict[str, Any], number: int | None, depth: int, *_: Any) -> StepCard:
    """A condition: 'Only when total over 5000', with the user's words."""
    config = node.get("config", {})
    return StepCard(
        id=node["id"],
        number=number,
        app=None,
        name="Condition",
        role="condition",
        does=f"Only when {describe(config)}",
        quote=config.get("quote") or None,
        values=[],
        to_fill=[],
        account=False,
        depth=depth,
    )


def operation_named(operations: Operations, app: str, operation: str | None) -> Operation | None:
    """The app's event or action of that id (None for a document older than operations)."""
    ops = operations[app]
    return (ops.event(operation) or ops.action(operation)) if operation else None


def needs_account(app: str, operation: Operation, operations: Operations) -> bool:
    """Whether the n8n node performing the operation asks for credentials."""
    event = operations[app].event(operation.id) is not None
    return bool(node_facts(where_of(app, operation.id, event)).get("credentials"))


def setting(name: str, value: Any) -> Setting | None:
    """A value as the confirmation says it ("channel #ops", "include attachments"); None for
    wording, an empty value or one still to choose."""
    if name in WORDING or is_open(value) or value in (None, "", [], {}, False):
        return None
    if value is True:
        return Setting(label=label(name), value="")
    said = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return Setting(label=label(name), value=said)


def still_open(name: str, value: str) -> str:
    """What is left to choose: the open value's own words ("recipient" of "recipient to be
    chosen") or, for a stand-in, the setting's name."""
    return value.removesuffix(OPEN_SUFFIX) if value.endswith(OPEN_SUFFIX) else label(name)


def describe(config: dict[str, Any]) -> str:
    """A condition in words: its field, how it compares, its value (as details.py says it)."""
    operator = str(config.get("operator", ""))
    words = OPERATORS.get(operator, operator.replace("_", " "))
    field = str(config.get("field", "value"))
    # A field nobody named ("only orders over 100") is no word the user said.
    named = "" if field == "value" else field.replace("_", " ") + " "
    return f"{named}{words} {config.get('value', '')}".strip()


def depth_of(ids: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Each step's row in the diagram: the longest path to it from a step nothing leads to.
    Edges form a graph without cycles (docs/workflow-format.md); one that named an unknown
    step or looped would be ignored past len(ids) rounds rather than hang."""
    depth = dict.fromkeys(ids, 0)
    for _ in ids:
        changed = False
        for source, target in edges:
            if source in depth and target in depth and depth[target] <= depth[source]:
                depth[target], changed = depth[source] + 1, True
        if not changed:
            break
    return depth
