"""Whether a node's parameters, at any depth, are ones its n8n description defines, each
with a value of the parameter's shape (an option it lists, a resource locator in a mode it
offers, n8n's filter format, ...). Used by catalog/n8n/validate.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from catalog.n8n.descriptions import Prop, applies, group_options
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
