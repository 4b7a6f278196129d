"""The composer: assemble the workflow document from validated configs. Pure functions.

The format is `planwire.workflow/v2`, documented in docs/workflow-format.md: nodes with
the operation each performs, the trigger first, conditions as filter steps, edges as a
graph. Code owns its structure; the model may only propose the title.
"""

from __future__ import annotations

import uuid
from itertools import pairwise
from typing import Any

from catalog import Catalogue, find_mentions
from catalog.flow import READ_ACTIONS
from catalog.operations import operations_for
from catalog.values.conditions import Condition, stated_conditions, with_read
from schemas.turn import StatedCondition
from services.specialist import values
from state.plan import PlanLog

FORMAT = "planwire.workflow/v2"
SCHEDULER = "scheduler"
MAX_TITLE_CHARS = 120


def workflow_id_for(plan_id: str) -> str:
    """One workflow per plan: a re-run of the composer names the same workflow."""
    return "wf-" + uuid.uuid5(uuid.NAMESPACE_URL, f"planwire:workflow:{plan_id}").hex[:20]


def specialists_of(plan: PlanLog) -> list[str]:
    """The plan's specialists in order (one config step each)."""
    return [n.specialist for n in plan.nodes if n.kind == "config" and n.specialist]


def heuristic_title(plan: PlanLog, catalogue: Catalogue) -> str:
    """'Gmail → PDF Parser → Slack': what the workflow connects."""
    return (
        " → ".join(catalogue[s].name for s in specialists_of(plan))[:MAX_TITLE_CHARS] or "Workflow"
    )


def acceptable_title(title: str, plan: PlanLog, catalogue: Catalogue) -> bool:
    """A model's title is used only if it is short, names a part of the workflow, and does
    not echo the prompt (a weak model titles workflows with its own instructions)."""
    text = title.strip().lower()
    names = [catalogue[s].name.lower() for s in specialists_of(plan)]
    return (
        3 <= len(text) <= MAX_TITLE_CHARS
        and not values.echoes_prompt(text)
        and any(n in text for n in names)
    )


def compose(
    plan: PlanLog,
    session_id: str,
    configs: dict[str, dict[str, Any]],
    catalogue: Catalogue,
    title: str,
    sources: dict[str, dict[str, list[int]]] | None = None,
    words: str = "",
) -> dict[str, Any]:
    """The workflow document; raises ValueError when a specialist has no validated config.

    `sources` (per specialist, `{field: [turn numbers]}`) cites the turns a config came from;
    `words` (the user's) give the conditions, placed as filter steps where they apply.
    """
    missing = [s for s in specialists_of(plan) if s not in configs]
    if missing:
        raise ValueError(f"no validated config for {', '.join(missing)}")
    cited = sources or {}
    operations = operations_of(plan)
    nodes = [
        node_entry(s, configs[s], catalogue, cited.get(s), operations.get(s))
        for s in specialists_of(plan)
    ]
    for later in nodes[1:]:  # only the first node starts the run; a later event is read
        later["role"] = "source" if later["role"] == "trigger" else later["role"]
    steps = [n["id"] for n in nodes]
    conditions = with_read(stated_conditions(words, steps), read_conditions(plan), words)
    nodes, gates = with_conditions(nodes, conditions, catalogue)
    return {
        "format": FORMAT,
        "workflow_id": workflow_id_for(plan.plan_id),
        "session_id": session_id,
        "plan_id": plan.plan_id,
        "title": (title.strip() or heuristic_title(plan, catalogue))[:MAX_TITLE_CHARS],
        "trigger": trigger_of(nodes),
        "schedule": schedule_of(configs),
        "nodes": nodes,
        "edges": [{"from": a, "to": b} for a, b in edges_of(nodes, gates, read_links(plan))],
        "created_at": plan.created_at,
    }


def read_links(plan: PlanLog) -> list[tuple[str, str]]:
    """How data moves between steps where a checked model said so (on the composer node)."""
    return [(k.source, k.target) for n in plan.nodes if n.kind == "composer" for k in n.links]


def read_conditions(plan: PlanLog) -> list[StatedCondition]:
    """The conditions a checked model read (the composer node carries them)."""
    return [c for n in plan.nodes if n.kind == "composer" for c in n.conditions]


def operations_of(plan: PlanLog) -> dict[str, str]:
    """The operation the plan gave each specialist (config nodes carry it)."""
    return {
        n.specialist: n.operation
        for n in plan.nodes
        if n.kind == "config" and n.specialist and n.operation
    }


def node_entry(
    specialist: str,
    config: dict[str, Any],
    catalogue: Catalogue,
    sources: dict[str, list[int]] | None = None,
    operation: str | None = None,
) -> dict[str, Any]:
    """One node of the document; `sources` only when some value cites a turn."""
    entry = catalogue[specialist]
    node = {
        "id": specialist,
        "app": specialist,
        "specialist": specialist,
        "kind": entry.kind,
        "role": role_of(specialist, operation, entry.role),
        "operation": operation,
        "config": config,
    }
    return node | {"sources": sources} if sources else node


def role_of(specialist: str, operation: str | None, default: str) -> str:
    """trigger for a node that starts on one of its app's events; else what it does."""
    if operation is None:
        return default
    ops = operations_for(specialist)
    if any(e.id == operation for e in ops.events):
        return "trigger"
    if default == "processor":
        return default
    return "source" if operation.startswith(READ_ACTIONS) else "action"


def trigger_of(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """What starts the workflow: the first node when it starts on an event or a schedule,
    else the user by hand."""
    first = nodes[0] if nodes else None
    if first is None or first["role"] != "trigger":
        return {"kind": "manual", "node": None, "event": None}
    return {
        "kind": "schedule" if first["app"] == SCHEDULER else "event",
        "node": first["id"],
        "event": first.get("operation"),
    }


Gates = dict[str, list[str]]  # a condition's id -> the steps only it leads to


def with_conditions(
    nodes: list[dict[str, Any]], conditions: list[Condition], catalogue: Catalogue
) -> tuple[list[dict[str, Any]], Gates]:
    """Each condition as a filter node. One whose sentence names where results go ("if it's
    over 85% also email the director") is a branch: it gates those steps only, and the
    others still run. Any other filters the flow right after the step whose output it
    tests: the app its sentence names, the sentiment step for a mood, else the start."""
    placed, gates = list(nodes), Gates()
    for number, condition in enumerate(conditions, start=1):
        name = f"condition-{number}"
        node: dict[str, Any] = {
            "id": name,
            "app": None,
            "kind": "condition",
            "role": "condition",
            "operation": "filter",
            "config": condition.config(),
        }
        gated = _gated(placed, condition, catalogue, gates)
        if gated:
            placed.insert(min(i for i, n in enumerate(placed) if n["id"] in gated), node)
            gates[name] = gated
        else:
            placed.insert(_after(placed, condition, catalogue) + 1, node)
    return placed, gates


def _gated(
    nodes: list[dict[str, Any]], condition: Condition, catalogue: Catalogue, gates: Gates
) -> list[str]:
    """The destinations the condition's sentence names (none already behind a condition),
    when others run without it."""
    named = set(find_mentions(condition.quote, catalogue))
    taken = {a for steps in gates.values() for a in steps}
    actions = [n["id"] for n in nodes if n["role"] == "action" and n["id"] not in taken]
    gated = [a for a in actions if a in named]
    # With every destination behind it, the condition filters the whole run instead.
    return gated if len(gated) < len(actions) else []


def edges_of(
    nodes: list[dict[str, Any]], gates: Gates, links: list[tuple[str, str]] | None = None
) -> list[tuple[str, str]]:
    """Data flow: the steps in order, except that each gated step hangs off its condition,
    which takes the data from the last step before it that is not a destination, or from
    a later one the notes link to a gated step; a step the notes link from a gated one
    follows it ("open a ticket if it's critical, then post the ticket's link to Slack")."""
    aside = set(gates) | {a for steps in gates.values() for a in steps}
    ids = [n["id"] for n in nodes]
    edges = list(pairwise([i for i in ids if i not in aside]))
    for condition, steps in gates.items():
        before = nodes[: ids.index(condition)]
        hubs = [n["id"] for n in before if n["id"] not in aside and n["role"] != "action"]
        earlier = [i for i in ids[: ids.index(condition)] if i not in aside]
        hubs += [a for a, b in links or () if b in steps and a in earlier]
        hub = (
            max(hubs, key=ids.index)
            if hubs
            else next((n["id"] for n in reversed(before) if n["id"] not in aside), None)
        )
        edges += ([(hub, condition)] if hub else []) + [(condition, step) for step in steps]
    # A step the notes link to a gated one takes its data from it, not from the chain.
    gated = {a for steps in gates.values() for a in steps}
    for source, target in links or ():
        if source in gated and target in ids and target not in aside:
            edges = [(a, b) for a, b in edges if b != target] + [(source, target)]
    return edges


def _after(nodes: list[dict[str, Any]], condition: Condition, catalogue: Catalogue) -> int:
    """Index of the node the condition follows: the step its sentence names (not one that
    writes), the sentiment step for a mood, else the last step that brings data in."""
    named = set(find_mentions(condition.quote, catalogue))
    if condition.field == "sentiment":
        named.add("sentiment")
    tested = [i for i, n in enumerate(nodes) if n.get("app") in named and n["role"] != "action"]
    reading = [i for i, n in enumerate(nodes) if n["role"] in ("trigger", "source")]
    return tested[-1] if tested else reading[-1] if reading else 0


def schedule_of(configs: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The scheduler's cron and time zone, when the workflow runs on a schedule."""
    config = configs.get(SCHEDULER)
    return {"cron": config["cron"], "timezone": config.get("timezone", "UTC")} if config else None
