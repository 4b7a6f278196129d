"""Check an exported n8n workflow against n8n's node descriptions (`n8n-nodes-base`).

What `n8n import:workflow` and the editor rely on: every node type exists at its
typeVersion; every parameter, at any depth, is one the node defines for its resource,
operation and version, with a value of the parameter's shape (an option it lists, a
resource locator in a mode it offers, n8n's filter format); names and ids are unique;
connections name existing nodes and outputs; exactly one trigger; no cycle.
"""

from __future__ import annotations

from typing import Any

from catalog.n8n.descriptions import Nodes, is_trigger, node_of
from catalog.n8n.parameters import parameter_problems


def workflow_problems(workflow: dict[str, Any], nodes: Nodes) -> list[str]:
    """Every problem of the export, as readable lines (empty: n8n takes it as it is)."""
    found = [f"top-level {k!r} missing" for k in ("name", "nodes", "connections", "settings")
             if k not in workflow]  # fmt: skip
    listed = workflow.get("nodes", [])
    for key in ("id", "name"):
        values = [n.get(key) for n in listed]
        found += [
            f"node {key} {v!r} is used twice" for v in sorted({*values}) if values.count(v) > 1
        ]
    described = {}
    for node in listed:
        description = node_of(nodes, node.get("type", ""), node.get("typeVersion", 0))
        if description is None:
            found.append(
                f"{node.get('name')}: {node.get('type')} {node.get('typeVersion')} is not a node n8n lists"
            )
            continue
        described[node["name"]] = description
        found += [f"{node['name']}: {p}" for p in node_problems(node, description)]
    triggers = [name for name, d in described.items() if is_trigger(d)]
    if len(triggers) != 1:
        found.append(f"{len(triggers)} trigger nodes ({triggers}); n8n runs a workflow from one")
    names = {n.get("name") for n in listed}
    return found + connection_problems(workflow.get("connections", {}), names, described)


def node_problems(node: dict[str, Any], description: dict[str, Any]) -> list[str]:
    """Position and parameters of one node."""
    found = []
    position = node.get("position")
    if not (isinstance(position, list) and len(position) == 2):
        found.append(f"position {position!r} is not [x, y]")
    params = node.get("parameters", {})
    context = {
        "resource": params.get("resource"),
        "operation": params.get("operation"),
        "@version": node["typeVersion"],
    }
    return found + parameter_problems(description["properties"], params, context)


def connection_problems(
    connections: dict[str, Any], names: set[str], described: dict[str, Any]
) -> list[str]:
    """Connections name existing nodes, outputs they have, and form no cycle (a node of an
    unknown type is reported once, where it is listed, not again for each connection)."""
    found: list[str] = []
    graph: dict[str, list[str]] = {}
    for source, kinds in connections.items():
        if source not in names:
            found.append(f"connection from {source!r}, which is no node")
            continue
        outputs = kinds.get("main", [])
        declared = described.get(source, {}).get("outputs", ["main"])
        if isinstance(declared, list) and len(outputs) > len(declared):
            found.append(f"{source!r} has no output {len(outputs) - 1}")
        for link in (link for output in outputs for link in output):
            target = link.get("node")
            if target not in names or link.get("type") != "main" or link.get("index") != 0:
                found.append(f"connection {source!r} -> {link!r} is not to a node's input")
            elif target in described and is_trigger(described[target]):
                found.append(f"connection {source!r} -> {target!r} goes into a trigger")
            graph.setdefault(source, []).append(target)
    return found + (["the connections form a cycle"] if _cyclic(graph) else [])


def _cyclic(graph: dict[str, list[str]]) -> bool:
    state: dict[str, str] = {}

    def visit(name: str) -> bool:
        if state.get(name) == "open":
            return True
        if state.get(name) == "done":
            return False
        state[name] = "open"
        looped = any(visit(t) for t in graph.get(name, []))
        state[name] = "done"
        return looped

    return any(visit(name) for name in list(graph))
