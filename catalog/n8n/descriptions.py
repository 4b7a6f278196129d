"""n8n's node descriptions (`dist/types/nodes.json` of `n8n-nodes-base`), and lookups in them.

Used where the package is at hand: scripts/n8n_nodes.py (are our mappings true?), the facts
generator and the export validator. The export itself reads only the generated facts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The release the mappings were written and checked against; tests fetch this one.
N8N_NODES_BASE_VERSION = "2.41.2"
PREFIX = "n8n-nodes-base."
Node = dict[str, Any]
Prop = dict[str, Any]
Nodes = dict[str, list[Node]]


def load_nodes(package: Path) -> Nodes:
    """Node descriptions by short type name; a type may have one entry per version range."""
    nodes: Nodes = {}
    for node in json.loads((package / "dist" / "types" / "nodes.json").read_text()):
        nodes.setdefault(node["name"], []).append(node)
    return nodes


def load_credentials(package: Path) -> set[str]:
    """The credential type names the package defines (an HTTP Request may borrow one)."""
    text = (package / "dist" / "types" / "credentials.json").read_text()
    return {credential["name"] for credential in json.loads(text)}


def versions(node: Node) -> list[float]:
    """The typeVersions one description covers."""
    version = node["version"]
    return version if isinstance(version, list) else [version]


def node_of(nodes: Nodes, type_: str, version: float) -> Node | None:
    """The description of `n8n-nodes-base.<name>` at that typeVersion, or None."""
    candidates = nodes.get(type_.removeprefix(PREFIX), [])
    return next((n for n in candidates if version in versions(n)), None)


def listed_versions(nodes: Nodes, type_: str) -> list[float]:
    """Every typeVersion the package lists for a node type (empty: no such node)."""
    return sorted({v for n in nodes.get(type_.removeprefix(PREFIX), []) for v in versions(n)})


def is_trigger(node: Node) -> bool:
    """Whether n8n starts workflows with the node (its group says so; it takes no input)."""
    return "trigger" in node.get("group", [])


def option_values(prop: Prop) -> list[Any]:
    """The values an options parameter lists (empty when loaded from the service)."""
    return [o.get("value") for o in prop.get("options", []) if isinstance(o, dict)]


def option_exists(props: list[Prop], key: str, value: str, context: dict[str, Any]) -> bool:
    """Whether the node's `key` parameter (resource, operation) offers `value` here."""
    for prop in props:
        if prop["name"] == key and applies(prop, context):
            options = option_values(prop)
            if value in options or (not options and prop.get("default") == value):
                return True
    return False


def value_fits(prop: Prop, value: Any) -> bool:
    """Options-typed parameters take only their listed values; dynamic lists take anything."""
    if prop.get("type") not in ("options", "multiOptions"):
        return True
    options = option_values(prop)
    if not options or (isinstance(value, str) and value.startswith("=")):
        return True  # loaded from the service at run time, or an expression
    chosen = value if isinstance(value, list) else [value]
    return all(item in options for item in chosen)


def find(props: list[Prop], path: str, context: dict[str, Any], nested: bool = False) -> list[Prop]:
    """Every definition of the dotted parameter path that applies in this context."""
    head, _, rest = path.partition(".")
    matches = [p for p in props if p.get("name") == head and applies(p, context, nested)]
    if not rest:
        return matches
    found: list[Prop] = []
    for prop in matches:
        if prop.get("type") == "collection":
            found += find(prop.get("options", []), rest, context, nested=True)
        elif prop.get("type") == "fixedCollection":
            group, _, inner = rest.partition(".")
            for option in group_options(prop, group):
                values = option.get("values", [])
                found += find(values, inner, context, nested=True) if inner else [option]
    return found


def group_options(prop: Prop, group: str) -> list[Prop]:
    """The groups of a fixedCollection parameter with this name."""
    return [o for o in prop.get("options", []) if o.get("name") == group]


def applies(prop: Prop, context: dict[str, Any], nested: bool = False) -> bool:
    """Whether n8n shows the parameter for our resource, operation and version.

    Conditions on other parameters (an auth mode, a toggle) are choices an export can make,
    so only these three are judged. Inside a collection a plain key names a sibling, and
    only a '/'-rooted key (or the version) names the node's own parameter.
    """
    display = prop.get("displayOptions") or {}
    for key, allowed in (display.get("show") or {}).items():
        root = _root_key(key, nested)
        if root in context and not _matches(context[root], allowed):
            return False
    for key, hidden in (display.get("hide") or {}).items():
        root = _root_key(key, nested)
        if root in context and context[root] is not None and _matches(context[root], hidden):
            return False
    return True


def _root_key(key: str, nested: bool) -> str | None:
    if key.startswith("/") or key == "@version" or not nested:
        return key.lstrip("/")
    return None


def _matches(value: Any, allowed: list[Any]) -> bool:
    return value is not None and any(_condition(value, a) for a in allowed)


def _condition(value: Any, allowed: Any) -> bool:
    if not (isinstance(allowed, dict) and "_cnd" in allowed):
        return bool(value == allowed)
    (op, arg), *_ = allowed["_cnd"].items()
    checks: dict[str, Callable[[], bool]] = {
        "eq": lambda: value == arg,
        "not": lambda: value != arg,
        "gte": lambda: value >= arg,
        "gt": lambda: value > arg,
        "lte": lambda: value <= arg,
        "lt": lambda: value < arg,
        "between": lambda: arg["from"] <= value <= arg["to"],
        "includes": lambda: arg in str(value),
        "regex": lambda: re.search(arg, str(value)) is not None,
        "exists": lambda: True,
    }
    return bool(checks[op]()) if op in checks else True
