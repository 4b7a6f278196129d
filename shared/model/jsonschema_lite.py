"""A small JSON Schema validator for the subset that structured output uses.

`jsonschema` is not a dependency, and model output only needs the keywords that strict
structured-output schemas are built from: type, enum, const, properties, required,
additionalProperties, items, min/maxItems, min/maxLength, minimum/maximum, anyOf and local
`$ref` (what pydantic emits for nested and optional fields). Other keywords are ignored:
the server enforces the schema too, this is the check we do not have to trust it for.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


class SchemaViolation(ValueError):
    """The instance does not match the schema; `path` says where (JSONPath-like)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


def validate(instance: Any, schema: dict[str, Any]) -> None:
    """Raise SchemaViolation at the first place `instance` breaks `schema`."""
    _check(instance, schema, "$", schema)


def _check(value: Any, schema: dict[str, Any], path: str, root: dict[str, Any]) -> None:
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        _check_any_of(value, schema["anyOf"], path, root)
    _check_type(value, schema.get("type"), path)
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaViolation(path, f"{value!r} is not one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        raise SchemaViolation(path, f"{value!r} is not {schema['const']!r}")
    if isinstance(value, str):
        _check_bounds(len(value), schema, "minLength", "maxLength", path, "characters")
    elif isinstance(value, bool):
        pass
    elif isinstance(value, (int, float)):
        _check_bounds(value, schema, "minimum", "maximum", path, "")
    elif isinstance(value, list):
        _check_array(value, schema, path, root)
    elif isinstance(value, dict):
        _check_object(value, schema, path, root)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported, got {ref!r}")
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    return _resolve(target, root)


def _check_any_of(
    value: Any, options: list[dict[str, Any]], path: str, root: dict[str, Any]
) -> None:
    errors = []
    for option in options:
        try:
            _check(value, option, path, root)
            return
        except SchemaViolation as exc:
            errors.append(str(exc))
    raise SchemaViolation(path, "matches none of the allowed shapes (" + "; ".join(errors) + ")")


def _check_type(value: Any, expected: str | list[str] | None, path: str) -> None:
    if expected is None:
        return
    names = [expected] if isinstance(expected, str) else list(expected)
    for name in names:
        # bool is an int subclass in Python but not a number in JSON.
        if isinstance(value, _TYPES[name]) and not (
            isinstance(value, bool) and name in ("integer", "number")
        ):
            return
        if name == "integer" and isinstance(value, float) and value.is_integer():
            return
    raise SchemaViolation(path, f"expected {' or '.join(names)}, got {_json_type(value)}")


def _check_bounds(
    size: float, schema: dict[str, Any], low: str, high: str, path: str, unit: str
) -> None:
    suffix = f" {unit}" if unit else ""
    if low in schema and size < schema[low]:
        raise SchemaViolation(path, f"{size}{suffix} is below the {low} of {schema[low]}")
    if high in schema and size > schema[high]:
        raise SchemaViolation(path, f"{size}{suffix} is above the {high} of {schema[high]}")


def _check_array(value: list[Any], schema: dict[str, Any], path: str, root: dict[str, Any]) -> None:
    _check_bounds(len(value), schema, "minItems", "maxItems", path, "items")
    items = schema.get("items")
    if isinstance(items, dict):
        for index, item in enumerate(value):
            _check(item, items, f"{path}[{index}]", root)


def _check_object(
    value: dict[str, Any], schema: dict[str, Any], path: str, root: dict[str, Any]
) -> None:
    properties: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            raise SchemaViolation(path, f"missing required property {name!r}")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            _check(item, properties[name], f"{path}.{name}", root)
        elif extra is False:
            raise SchemaViolation(path, f"unexpected property {name!r}")
        elif isinstance(extra, dict):
            _check(item, extra, f"{path}.{name}", root)


def _json_type(value: Any) -> str:
    for name, types in _TYPES.items():
        if isinstance(value, types) and not (
            isinstance(value, bool) and name in ("integer", "number")
        ):
            return name
    return type(value).__name__
