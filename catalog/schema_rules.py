"""Structural rules for each entry's config_schema.

A specialist's config is produced by a model, so its schema must be a closed object with
bounded strings and arrays: unbounded fields are where a weak model rambles. Checking the
structure here needs no dependency; when `jsonschema` happens to be installed we also ask
it whether the schema is valid draft 2020-12.
"""

from __future__ import annotations

from typing import Any

MIN_PROPERTIES, MAX_PROPERTIES = 1, 8


def check_config_schema(schema: Any) -> str | None:
    """None when the schema is acceptable, else a short reason."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "must be a JSON Schema with type 'object'"
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not MIN_PROPERTIES <= len(properties) <= MAX_PROPERTIES:
        return f"must have a 'properties' object with {MIN_PROPERTIES}-{MAX_PROPERTIES} entries"
    if schema.get("additionalProperties") is not False:
        return "must set additionalProperties: false"
    required = schema.get("required", [])
    if not isinstance(required, list) or not set(required) <= set(properties):
        return "'required' must list only declared properties"
    return _first_unbounded(properties) or _draft_problem(schema)


def _first_unbounded(properties: dict[str, Any]) -> str | None:
    for name, spec in properties.items():
        problem = _unbounded(spec)
        if problem:
            return f"property {name!r} {problem}"
    return None


def _unbounded(spec: Any) -> str | None:
    if not isinstance(spec, dict):
        return "is not a schema object"
    kind = spec.get("type")
    # An enum bounds a string by itself; any other string needs maxLength.
    if kind == "string" and "maxLength" not in spec and "enum" not in spec:
        return "is a string without maxLength"
    if kind == "array":
        if "maxItems" not in spec:
            return "is an array without maxItems"
        return _unbounded(spec.get("items", {"type": "null"}))
    return None


def _draft_problem(schema: dict[str, Any]) -> str | None:
    try:
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import SchemaError
    except ImportError:  # optional: the structural checks above still apply
        return None
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"is not valid JSON Schema: {exc.message}"
    return None
