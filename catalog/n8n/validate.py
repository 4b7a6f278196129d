"""Check an exported n8n workflow against n8n's node descriptions (`n8n-nodes-base`).

What `n8n import:workflow` and the editor rely on: every node type exists at its
typeVersion; every parameter, at any depth, is one the node defines for its resource,
operation and version, with a value of the parameter's shape (an option it lists, a
resource locator in a mode it offers, n8n's filter format); names and ids are unique;
connections name existing nodes and outputs; exactly one trigger; no cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from catalog.n8n.descriptions import Nodes, Prop, applies, group_options, is_trigger, node_of
from catalog.n8n.descriptions import value_fits as option_fits

# n8n's filter operators by value type (n8n-workflow's FilterOperatorType: the editor's
# list, which nodes.json does not carry).
FILTER_OPERATORS = {
    "string": {"exists", "notExists", "empty", "notEmpty", "equals", "notEquals", "contains",
               "notContains", "startsWith", "notStartsWith", "endsWith", "notEndsWith",
               "regex", "notRegex"},
    "number": {"exists", "notExists", "empty", "notEmpty", "equals", "notEquals", "gt", "lt",
               "gte", "lte"},
    "dateTime": {"exists", "notExists", "empty", "notEmpty", "equals", "notEquals", "after",
                 "before", "afterOrEquals", "beforeOrEquals"},
    "boolean": {"exists", "notExists", "empty", "notEmpty", "true", "false", "equals",
                "notEquals"},
}  # fmt: skip
ASSIGNMENT_TYPES = {"string", "number", "boolean", "array", "object"}
SCALARS = {"string": (str,), "number": (int, float), "boolean": (bool,), "dateTime": (str,)}


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
    return found + connection_problems(workflow.get("connections", {}), described)


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


def parameter_problems(
    props: list[Prop], params: dict[str, Any], context: dict[str, Any], nested: bool = False
) -> list[str]:
    """Each parameter is defined here and its value has the shape of one definition."""
    found = []
    for key, value in params.items():
        definitions = [p for p in props if p.get("name") == key and applies(p, context, nested)]
        if not definitions:
            found.append(f"parameter {key!r} is not defined for this resource and operation")
            continue
        attempts = [value_problems(d, value, context) for d in definitions]
        if all(attempts):
            found += [f"{key}: {p}" for p in attempts[0]]
    return found


def value_problems(prop: Prop, value: Any, context: dict[str, Any]) -> list[str]:
    """Why the value does not fit the parameter definition (empty: it fits)."""
    kind = prop.get("type", "")
    if isinstance(value, str) and value.startswith("=") and kind in (*SCALARS, "options", "json"):
        return []  # an n8n expression, evaluated at run time
    if kind in SCALARS:
        ok = isinstance(value, SCALARS[kind]) and not (kind == "number" and isinstance(value, bool))
        return [] if ok else [f"{value!r} is not a {kind}"]
    if kind in ("options", "multiOptions"):
        shape_ok = isinstance(value, list) == (kind == "multiOptions")
        return (
            [] if shape_ok and option_fits(prop, value) else [f"{value!r} is not among its options"]
        )
    checks: dict[str, Callable[[Prop, Any, dict[str, Any]], list[str]]] = {
        "collection": _collection,
        "fixedCollection": _fixed_collection,
        "resourceLocator": _resource_locator,
        "filter": _filter,
        "assignmentCollection": _assignments,
        "resourceMapper": _resource_mapper,
        "json": lambda _p, v, _c: [] if isinstance(v, str) else [f"{v!r} is not JSON text"],
        "hidden": lambda p, v, _c: (
            [] if v == p.get("default") else [f"{v!r} is not its fixed value"]
        ),
        "credentialsSelect": lambda _p, v, _c: (
            [] if isinstance(v, str) else ["not a credential type"]
        ),
    }
    check = checks.get(kind)
    return check(prop, value, context) if check else [f"type {kind!r} is not one an export fills"]


def _collection(prop: Prop, value: Any, context: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict):
        return ["a collection takes an object"]
    return parameter_problems(prop.get("options", []), value, context, nested=True)


def _fixed_collection(prop: Prop, value: Any, context: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict):
        return ["a fixedCollection takes an object of groups"]
    multiple = (prop.get("typeOptions") or {}).get("multipleValues")
    found = []
    for group, entries in value.items():
        options = group_options(prop, group)
        if not options:
            found.append(f"group {group!r} is not defined")
            continue
        if isinstance(entries, list) != bool(multiple):
            found.append(f"group {group!r} takes {'a list' if multiple else 'one object'}")
            continue
        for entry in entries if multiple else [entries]:
            found += parameter_problems(options[0].get("values", []), entry, context, nested=True)
    return found


def _resource_locator(prop: Prop, value: Any, _context: dict[str, Any]) -> list[str]:
    modes = [mode["name"] for mode in prop.get("modes", [])]
    if not (isinstance(value, dict) and value.get("__rl") is True):
        return ["a resource locator takes {__rl: true, mode, value}"]
    if value.get("mode") not in modes:
        return [f"mode {value.get('mode')!r} is not one of {modes}"]
    return [] if isinstance(value.get("value"), str | int) else ["its value is not text"]


def _filter(prop: Prop, value: Any, context: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict) or set(value) != {"conditions", "combinator", "options"}:
        return ["a filter takes exactly conditions, combinator and options"]
    found = [] if value["combinator"] in ("and", "or") else ["combinator is not and/or"]
    version = filter_version(prop, context["@version"])
    if value["options"].get("version") != version:
        found.append(f"options.version is not {version}, as this node version defines")
    for condition in value["conditions"]:
        operator = condition.get("operator", {})
        allowed = FILTER_OPERATORS.get(operator.get("type"), set())
        if operator.get("operation") not in allowed or not {"id", "leftValue", "rightValue"} <= set(
            condition
        ):
            found.append(f"condition {condition!r} is not in n8n's filter format")
    return found


def filter_version(prop: Prop, node_version: float) -> int:
    """The filter format version the node's description asks for at this node version."""
    version = ((prop.get("typeOptions") or {}).get("filter") or {}).get("version", 1)
    if isinstance(version, int):
        return version
    # e.g. "={{ $nodeVersion >= 2.3 ? 3 : $nodeVersion >= 2.2 ? 2 : 1 }}"
    for floor, result in re.findall(r"\$nodeVersion >= ([\d.]+) \? (\d+)", version):
        if node_version >= float(floor):
            return int(result)
    return int(re.findall(r": (\d+) }}", version)[-1])


def _assignments(_prop: Prop, value: Any, _context: dict[str, Any]) -> list[str]:
    entries = value.get("assignments") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        return ["assignments take {assignments: [...]}"]
    keys = {"id", "name", "value", "type"}
    bad = [e for e in entries if set(e) != keys or e["type"] not in ASSIGNMENT_TYPES]
    return [f"assignment {e!r} is not id, name, value and a type" for e in bad]


def _resource_mapper(_prop: Prop, value: Any, _context: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict) or value.get("mappingMode") not in (
        "defineBelow",
        "autoMapInputData",
    ):
        return ["a resource mapper takes a mappingMode of defineBelow or autoMapInputData"]
    lists = all(isinstance(value.get(k), list) for k in ("matchingColumns", "schema"))
    return [] if lists else ["matchingColumns and schema must be lists"]


def connection_problems(connections: dict[str, Any], described: dict[str, Any]) -> list[str]:
    """Connections name existing nodes, outputs they have, and form no cycle."""
    found: list[str] = []
    graph: dict[str, list[str]] = {}
    for source, kinds in connections.items():
        if source not in described:
            found.append(f"connection from {source!r}, which is no node")
            continue
        outputs = kinds.get("main", [])
        if len(outputs) > len(described[source].get("outputs", ["main"])):
            found.append(f"{source!r} has no output {len(outputs) - 1}")
        for link in (link for output in outputs for link in output):
            target = link.get("node")
            if target not in described or link.get("type") != "main" or link.get("index") != 0:
                found.append(f"connection {source!r} -> {link!r} is not to a node's input")
            elif is_trigger(described[target]):
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
