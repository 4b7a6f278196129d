"""What the export needs to know of each n8n node it writes, generated from n8n's descriptions.

For every event, action and condition of catalog/operations.json (in file order),
`facts.json` holds its node's traits (it needs credentials, it listens on a webhook) and, for each parameter the
mapping fills or fixes and each collection on the way to it, the parameter's type, whether a
fixedCollection takes several entries, a resource locator's modes and an options list's
values. The gateway exports from this file alone; `python scripts/n8n_nodes.py PACKAGE
--facts catalog/n8n/facts.json` regenerates it and tests/deploy checks it is current.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from typing import Any

from catalog.n8n.descriptions import (
    N8N_NODES_BASE_VERSION,
    Nodes,
    Prop,
    find,
    node_of,
    option_values,
)
from catalog.operations import N8nNode, Operations

# Where a parameter has several definitions (one per display condition we do not judge),
# the simplest is the one an export fills: a Webhook's one method before its method list.
PREFERENCE = ("string", "number", "boolean", "options", "resourceLocator", "multiOptions")


def mappings(operations: Operations) -> Iterator[tuple[str, str, N8nNode]]:
    """(where, kind, mapping) for every condition step, event and action."""
    for condition in operations.conditions:
        yield f"conditions.{condition.id}", "condition", condition.n8n
    for app in operations.apps:
        for event in app.events:
            yield f"{app.id}.events.{event.id}", "event", event.n8n
        for action in app.actions:
            yield f"{app.id}.actions.{action.id}", "action", action.n8n


def where_of(app: str | None, operation: str, event: bool) -> str:
    """An operation's entry in the facts: 'gmail.events.new_email', 'conditions.filter'.

    Per operation, not per n8n node: two operations may use one node set up differently
    (an HTTP Request borrowing Stripe's credential, or a plain one).
    """
    if app is None:
        return f"conditions.{operation}"
    return f"{app}.{'events' if event else 'actions'}.{operation}"


def context_of(mapping: N8nNode) -> dict[str, Any]:
    """The display context n8n judges the mapping's parameters in."""
    return {
        "resource": mapping.resource,
        "operation": mapping.operation,
        "@version": mapping.type_version,
    }


def targets_of(mapping: N8nNode) -> list[str]:
    """The n8n parameters our config values fill, in mapping order (repeats kept)."""
    return [t for ts in mapping.parameters.values() for t in ([ts] if isinstance(ts, str) else ts)]


def paths_of(mapping: N8nNode) -> list[str]:
    """Every parameter path the mapping fills or fixes, in file order, once."""
    return list(dict.fromkeys([*mapping.values, *targets_of(mapping)]))


def generate(operations: Operations, nodes: Nodes) -> dict[str, Any]:
    """The facts file's content for these operations, from the package's descriptions."""
    entries: dict[str, Any] = {}
    for where, _kind, mapping in mappings(operations):
        node = node_of(nodes, mapping.type, mapping.type_version)
        if node is None:
            continue  # scripts/n8n_nodes.py reports it
        parameters: dict[str, Any] = {}
        for path in paths_of(mapping):
            parameters.update(_chain(node["properties"], path, context_of(mapping)))
        entries[where] = {
            "node": f"{mapping.type}@{mapping.type_version}",
            "credentials": needs_account(node, mapping),
            "webhook": bool(node.get("webhooks")),
            "parameters": dict(sorted(parameters.items())),
        }
    return {"n8n-nodes-base": N8N_NODES_BASE_VERSION, "operations": entries}


def needs_account(node: dict[str, Any], mapping: N8nNode) -> bool:
    """Whether the node, as the mapping sets it up (the rest at n8n's defaults), asks for a
    credential: a Webhook takes one only when its authentication is switched on."""
    context = {**context_of(mapping), **mapping.values}
    defaults = {p["name"]: p.get("default") for p in node["properties"] if "name" in p}
    for credential in node.get("credentials") or []:
        show = (credential.get("displayOptions") or {}).get("show") or {}
        if all(context.get(k, defaults.get(k)) in allowed for k, allowed in show.items()):
            return True
    return False


def _chain(props: list[Prop], path: str, context: dict[str, Any]) -> dict[str, Any]:
    """Facts of the path and of each collection on the way (a group name has none)."""
    parts, found = path.split("."), {}
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        typed = [p for p in find(props, prefix, context) if "type" in p]
        if typed:
            found[prefix] = _fact(min(typed, key=_rank))
    return found


def _rank(prop: Prop) -> int:
    kind = prop.get("type", "")
    return PREFERENCE.index(kind) if kind in PREFERENCE else len(PREFERENCE)


def _fact(prop: Prop) -> dict[str, Any]:
    fact: dict[str, Any] = {"type": prop["type"]}
    if prop["type"] == "fixedCollection":
        fact["multiple"] = bool((prop.get("typeOptions") or {}).get("multipleValues"))
    if prop["type"] == "resourceLocator":
        fact["modes"] = [mode["name"] for mode in prop.get("modes", [])]
    if prop["type"] in ("options", "multiOptions") and option_values(prop):
        fact["options"] = option_values(prop)
    return fact


def dumps(facts: dict[str, Any]) -> str:
    """The file's text: stable, so a regenerated file differs only where n8n did."""
    return json.dumps(facts, indent=1, ensure_ascii=False) + "\n"


@lru_cache(maxsize=1)
def load_facts() -> dict[str, Any]:
    """The packaged facts (read once)."""
    text = resources.files("catalog.n8n").joinpath("facts.json").read_text(encoding="utf-8")
    facts: dict[str, Any] = json.loads(text)
    return facts


def node_facts(where: str) -> dict[str, Any]:
    """The facts of one operation's node (see where_of); empty when the file has none."""
    entry: dict[str, Any] = load_facts()["operations"].get(where, {})
    return entry
