"""Check every n8n mapping in catalog/operations.json against n8n's own node descriptions.

Usage: python scripts/n8n_nodes.py PACKAGE_DIR [--operations FILE]

PACKAGE_DIR is an unpacked `n8n-nodes-base` npm package (`npm pack n8n-nodes-base@VERSION`,
then `tar xzf`); its `dist/types/nodes.json` describes every node. For each event, action
and condition step the script checks that the node type exists, the typeVersion is one the
node lists, the resource and operation are options the node offers, and every parameter we
fill or fix exists on that node for that resource, operation and version (fixed values must
be among the parameter's options). It prints one line per problem and exits 1 if any.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from catalog.operations import N8nNode, Operations, load_operations

# The release the mappings were written and checked against; tests fetch this one.
N8N_NODES_BASE_VERSION = "2.41.2"
PREFIX = "n8n-nodes-base."
Node = dict[str, Any]
Prop = dict[str, Any]


def load_nodes(package: Path) -> dict[str, list[Node]]:
    """Node descriptions by short type name; a type may have one entry per version range."""
    nodes: dict[str, list[Node]] = {}
    for node in json.loads((package / "dist" / "types" / "nodes.json").read_text()):
        nodes.setdefault(node["name"], []).append(node)
    return nodes


def load_credentials(package: Path) -> set[str]:
    """The credential type names the package defines (an HTTP Request may borrow one)."""
    text = (package / "dist" / "types" / "credentials.json").read_text()
    return {credential["name"] for credential in json.loads(text)}


def mappings(operations: Operations) -> Iterator[tuple[str, str, N8nNode]]:
    """(where, kind, mapping) for every condition step, event and action."""
    for condition in operations.conditions:
        yield f"conditions.{condition.id}", "condition", condition.n8n
    for app in operations.apps:
        for event in app.events:
            yield f"{app.id}.events.{event.id}", "event", event.n8n
        for action in app.actions:
            yield f"{app.id}.actions.{action.id}", "action", action.n8n


def problems(
    operations: Operations, nodes: dict[str, list[Node]], credentials: set[str]
) -> list[str]:
    """Every problem found, as 'where: what' lines."""
    found = []
    for where, kind, mapping in mappings(operations):
        found += [f"{where}: {p}" for p in check_mapping(mapping, kind, nodes)]
        credential = mapping.values.get("nodeCredentialType")
        if credential is not None and credential not in credentials:
            found.append(f"{where}: credential type {credential!r} is not in the package")
    return found


def check_mapping(mapping: N8nNode, kind: str, nodes: dict[str, list[Node]]) -> list[str]:
    """Problems of one mapping: type, version, resource, operation, parameters, values."""
    name = mapping.type.removeprefix(PREFIX)
    version = mapping.type_version
    node = next((n for n in nodes.get(name, []) if version in _versions(n)), None)
    if node is None:
        listed = sorted({v for n in nodes.get(name, []) for v in _versions(n)})
        return [
            f"{mapping.type} {version} is not a node version n8n lists ({listed or 'no such node'})"
        ]
    found = []
    if kind == "event" and not _is_trigger(name) and not mapping.poll:
        found.append(f"{name} is not a trigger node and the event is not marked poll")
    context = {"resource": mapping.resource, "operation": mapping.operation, "@version": version}
    for key in ("resource", "operation"):
        value = context[key]
        if value is not None and not _option_exists(node["properties"], key, value, context):
            found.append(f"{key} {value!r} is not offered by {name} {version}")
    targets = [
        p for ps in mapping.parameters.values() for p in ([ps] if isinstance(ps, str) else ps)
    ]
    for path in targets:
        if not _find(node["properties"], path, context):
            found.append(
                f"parameter {path!r} does not exist on {name} {version} for this operation"
            )
    for path, value in mapping.values.items():
        found += _check_value(node["properties"], path, value, context, name)
    return found


def _versions(node: Node) -> list[float]:
    version = node["version"]
    return version if isinstance(version, list) else [version]


def _is_trigger(name: str) -> bool:
    # n8n's trigger nodes are named ...Trigger; the Webhook node starts workflows too.
    return name.endswith("Trigger") or name == "webhook"


def _option_exists(props: list[Prop], key: str, value: str, context: dict[str, Any]) -> bool:
    for prop in props:
        if prop["name"] == key and _applies(prop, context):
            options = [o.get("value") for o in prop.get("options", []) if isinstance(o, dict)]
            if value in options or (not options and prop.get("default") == value):
                return True
    return False


def _check_value(
    props: list[Prop], path: str, value: Any, context: dict[str, Any], name: str
) -> list[str]:
    found = _find(props, path, context)
    if not found:
        return [f"fixed parameter {path!r} does not exist on {name} for this operation"]
    if any(_value_fits(prop, value) for prop in found):
        return []
    return [f"fixed value {value!r} is not an option of {path!r} on {name}"]


def _value_fits(prop: Prop, value: Any) -> bool:
    """Options-typed parameters take only their listed values; dynamic lists take anything."""
    if prop.get("type") not in ("options", "multiOptions"):
        return True
    options = [o.get("value") for o in prop.get("options", []) if isinstance(o, dict)]
    if not options:  # loaded from the service at run time (loadOptionsMethod)
        return True
    chosen = value if isinstance(value, list) else [value]
    return all(item in options for item in chosen)


def _find(
    props: list[Prop], path: str, context: dict[str, Any], nested: bool = False
) -> list[Prop]:
    """Every definition of the dotted parameter path that applies in this context."""
    head, _, rest = path.partition(".")
    matches = [p for p in props if p.get("name") == head and _applies(p, context, nested)]
    if not rest:
        return matches
    found: list[Prop] = []
    for prop in matches:
        if prop.get("type") == "collection":
            found += _find(prop.get("options", []), rest, context, nested=True)
        elif prop.get("type") == "fixedCollection":
            group, _, inner = rest.partition(".")
            for option in prop.get("options", []):
                if option.get("name") == group:
                    values = option.get("values", [])
                    found += _find(values, inner, context, nested=True) if inner else [option]
    return found


def _applies(prop: Prop, context: dict[str, Any], nested: bool = False) -> bool:
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
    checks = {
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


def main(argv: list[str] | None = None) -> int:
    """Print the problems of the mappings; exit status 1 when there is any."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", type=Path, help="an unpacked n8n-nodes-base package")
    parser.add_argument("--operations", type=Path, help="operations file (default: packaged)")
    args = parser.parse_args(argv)
    operations = load_operations(args.operations)
    found = problems(operations, load_nodes(args.package), load_credentials(args.package))
    for line in found:
        print(line)
    count = sum(1 for _ in mappings(operations))
    print(f"{count} n8n mappings checked, {len(found)} problems", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
