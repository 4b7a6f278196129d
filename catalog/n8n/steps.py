"""Each document node as the n8n node that performs it, before it is placed and connected."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from catalog.model import Catalogue
from catalog.n8n.conditions import condition_parameters, describe
from catalog.n8n.facts import node_facts, where_of
from catalog.n8n.values import label, parameters, shown
from catalog.operations import AppOperations, Operation, Operations

ENTRY = "planwire:start"  # the key of a start node the document has none for
NO_OP = ("n8n-nodes-base.noOp", 1)
SCHEDULE_TRIGGER = "n8n-nodes-base.scheduleTrigger"


@dataclass
class Step:
    """One n8n node: what it is, its parameters and the notes the person reads."""

    key: str
    name: str
    type: str
    version: float
    parameters: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    webhook: bool = False
    starts: bool = False  # an n8n trigger node: the run starts here
    polled: bool = False  # the run starts here, but n8n must poll for it on a schedule


def manual_start() -> Step:
    """n8n's Manual Trigger, for a workflow the person runs by hand."""
    return Step(
        ENTRY, "When clicking ‘Execute workflow’", "n8n-nodes-base.manualTrigger", 1, starts=True
    )


def poll_start() -> Step:
    """A Schedule Trigger running a step n8n can only poll for its event, every hour."""
    rule = {"rule": {"interval": [{"field": "hours", "hoursInterval": 1}]}}
    notes = ["n8n has no trigger for the next step's event: this checks for it every hour."]
    return Step(
        ENTRY, "Every hour", "n8n-nodes-base.scheduleTrigger", 1.2, rule, notes, starts=True
    )


def step_of(
    node: dict[str, Any], starts: bool, operations: Operations, catalogue: Catalogue
) -> Step:
    """The n8n node of one document node (`starts`: the document's trigger)."""
    if node.get("kind") == "condition":
        return condition_step(node, operations)
    app = node.get("app") or node["specialist"]
    ops, name = operations[app], catalogue[app].name
    operation = operation_of(node, ops, starts)
    if operation is None:
        return placeholder(node, name, None)
    event = ops.event(operation.id) is not None
    if event and not (starts or operation.n8n.poll):
        return placeholder(node, f"{name}: {operation.name}", operation)
    return app_step(node, name, operation, where_of(app, operation.id, event), starts and event)


def operation_of(node: dict[str, Any], ops: AppOperations, starts: bool) -> Operation | None:
    """The node's operation; a document without one (v1) gets the app's default."""
    if node.get("operation"):
        return ops.event(node["operation"]) or ops.action(node["operation"])
    if starts and ops.default_event:
        return ops.event(ops.default_event)
    return ops.action(ops.default_action) if ops.default_action else None


def condition_step(node: dict[str, Any], operations: Operations) -> Step:
    """A Filter node (If for an `if` condition) testing the condition."""
    condition = operations.condition(node.get("operation") or "filter")
    config = node.get("config", {})
    params, notes = condition_parameters(config, condition.n8n.type_version)
    if condition.n8n.note:  # the If: which output is which; every edge leaves by 'true'
        notes.append(condition.n8n.note)
    title = f"{'If' if condition.id == 'if' else 'Filter'}: {describe(config)}"[:80]
    return Step(node["id"], title, condition.n8n.type, condition.n8n.type_version, params, notes)


def app_step(
    node: dict[str, Any], app_name: str, operation: Operation, where: str, starts: bool
) -> Step:
    """An app's node: its operation's n8n node with our config as its parameters."""
    mapping, name = operation.n8n, f"{app_name}: {operation.name}"
    facts = node_facts(where)
    config = dict(node.get("config", {}))
    if mapping.type == SCHEDULE_TRIGGER:
        config.pop("timezone", None)  # the workflow's settings carry it (export.workflow)
    params, notes = parameters(mapping, config, facts)
    lines = notes.lines() + ([mapping.note] if mapping.note else [])
    if facts.get("credentials"):
        lines.append("Connect an account for this node in n8n (credentials are not exported).")
    step = Step(node["id"], name, mapping.type, mapping.type_version, params, lines)
    step.webhook = bool(facts.get("webhook"))
    step.starts, step.polled = starts and not mapping.poll, starts and mapping.poll
    return step


def placeholder(node: dict[str, Any], name: str, operation: Operation | None) -> Step:
    """A node n8n cannot run here (an app's event in the middle of a run): a No Operation
    node that says what to put in its place, with the values the user gave."""
    if operation is None:
        why = f"{name} has nothing it can do as a step in n8n: replace this node."
    else:
        trigger = operation.n8n.type.removeprefix("n8n-nodes-base.")
        why = (
            f"n8n starts workflows on '{operation.name}' with its {trigger} node, which cannot"
            f" run in the middle of one: replace this node with a {name.split(':')[0]} node"
            " that reads what you need."
        )
    values = [f"{label(k)} = {shown(v)}" for k, v in node.get("config", {}).items()]
    notes = [why] + ([f"Values given: {'; '.join(values)}."] if values else [])
    return Step(node["id"], name, NO_OP[0], NO_OP[1], {}, notes)
