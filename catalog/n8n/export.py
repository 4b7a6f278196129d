"""A planwire workflow document (v2, or v1) as an n8n workflow for `n8n import:workflow`.

Each node becomes the n8n node of its operation (catalog/operations.json), named in words
("Shopify: New order"), its config written into that node's parameters (values.py) and what
is left to do in its notes; each condition becomes a Filter (or If) node. The run starts at
the document's trigger node; an event n8n can only poll starts with a Schedule Trigger
before it, a manual workflow with n8n's Manual Trigger. Connections follow the document's
edges. Credentials are never exported: each node that needs an account says so in its
notes. Pure: nothing is read but the packaged data files.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from catalog.model import Catalogue, load_catalogue
from catalog.n8n.layout import positions
from catalog.n8n.shapes import NAMESPACE
from catalog.n8n.steps import ENTRY, Step, manual_start, poll_start, step_of
from catalog.operations import Operations, load_operations


def to_n8n(
    document: dict[str, Any],
    operations: Operations | None = None,
    catalogue: Catalogue | None = None,
) -> dict[str, Any]:
    """The n8n workflow JSON for a workflow document."""
    operations, catalogue = operations or load_operations(), catalogue or load_catalogue()
    trigger = trigger_of(document, operations)
    nodes = document.get("nodes", [])
    steps = [step_of(node, node["id"] == trigger, operations, catalogue) for node in nodes]
    edges = [(e["from"], e["to"]) for e in edges_of(document)]
    first = next((s for s in steps if s.starts or s.polled), None)
    if first is None or first.polled:
        entry = manual_start() if first is None else poll_start()
        targets = roots(nodes, edges) if first is None else [first.key]
        steps, edges = [entry, *steps], [(ENTRY, t) for t in targets] + edges
    return workflow(document, unique_names(steps), edges)


def trigger_of(document: dict[str, Any], operations: Operations) -> str | None:
    """The id of the node the run starts on; None for a manual workflow."""
    if "trigger" in document:
        node: str | None = document["trigger"].get("node")
        return node
    nodes = document.get("nodes", [])
    if not nodes:
        return None
    first = nodes[0]  # v1: the first node starts the run when its app has an event
    app = first.get("app") or first.get("specialist")
    starts = first.get("role") == "trigger" and operations[app].default_event
    return str(first["id"]) if starts else None


def edges_of(document: dict[str, Any]) -> list[dict[str, str]]:
    """The document's edges; a document without them is a chain in node order."""
    if "edges" in document:
        return list(document["edges"])
    ids = [n["id"] for n in document.get("nodes", [])]
    return [{"from": a, "to": b} for a, b in itertools.pairwise(ids)]


def roots(nodes: list[dict[str, Any]], edges: list[tuple[str, str]]) -> list[str]:
    """The nodes no edge leads to: where a manual run begins."""
    targets = {b for _a, b in edges}
    return [n["id"] for n in nodes if n["id"] not in targets]


def unique_names(steps: list[Step]) -> list[Step]:
    """n8n identifies nodes by name: a repeated name gets a number."""
    seen: dict[str, int] = {}
    for step in steps:
        count = seen[step.name] = seen.get(step.name, 0) + 1
        if count > 1:
            step.name = f"{step.name} ({count})"
    return steps


def workflow(
    document: dict[str, Any], steps: list[Step], edges: list[tuple[str, str]]
) -> dict[str, Any]:
    """The n8n workflow object: nodes, connections, settings."""
    wid = document.get("workflow_id", "")
    placed = positions([s.key for s in steps], edges)
    names = {s.key: s.name for s in steps}
    settings: dict[str, Any] = {"executionOrder": "v1"}
    if zone := timezone_of(document):
        settings["timezone"] = zone  # n8n reads a schedule's time zone from here
    return {
        "name": document.get("title") or wid or "planwire workflow",
        "nodes": [node_json(wid, s, placed[s.key]) for s in steps],
        "connections": connections(edges, names),
        "settings": settings,
        "pinData": {},
        "meta": {"templateCredsSetupCompleted": False},
        "active": False,
        "tags": [],
    }


def timezone_of(document: dict[str, Any]) -> str | None:
    """The schedule's time zone (v1 documents keep it only in the scheduler's config)."""
    if zone := (document.get("schedule") or {}).get("timezone"):
        return str(zone)
    scheduler = [
        n for n in document.get("nodes", []) if (n.get("app") or n.get("specialist")) == "scheduler"
    ]
    zone = scheduler[0].get("config", {}).get("timezone") if scheduler else None
    return str(zone) if zone else None


def node_json(workflow_id: str, step: Step, position: list[int]) -> dict[str, Any]:
    """One n8n node; its id is stable for the same workflow and node."""
    node: dict[str, Any] = {
        "id": str(uuid.uuid5(NAMESPACE, f"{workflow_id}/{step.key}")),
        "name": step.name,
        "type": step.type,
        "typeVersion": step.version,
        "position": position,
        "parameters": step.parameters,
    }
    if step.webhook:  # the path n8n registers the node's webhook under
        node["webhookId"] = str(uuid.uuid5(NAMESPACE, f"{workflow_id}/{step.key}/webhook"))
    if step.notes:
        node["notes"], node["notesInFlow"] = "\n".join(step.notes), True
    return node


def connections(edges: list[tuple[str, str]], names: dict[str, str]) -> dict[str, Any]:
    """n8n's connections: by source name, its first output, the targets' first input."""
    out: dict[str, Any] = {}
    for source, target in edges:
        links = out.setdefault(names[source], {"main": [[]]})["main"][0]
        links.append({"node": names[target], "type": "main", "index": 0})
    return out
