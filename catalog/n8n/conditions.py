"""A condition node (`field operator value`) as n8n's Filter or If parameters.

The format is the one the Filter and If descriptions define for their `conditions`
parameter (type `filter`): `{conditions: [...], combinator, options}` with the options'
format version the node version asks for. Numbers compare as numbers, ISO dates as dates,
anything else as text; a comparison n8n cannot make on text is left to the person.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from catalog.n8n.shapes import ISO_DATE, NAMESPACE
from catalog.n8n.values import field_ref

TEXT = {
    "equals": "equals",
    "not_equals": "notEquals",
    "contains": "contains",
    "not_contains": "notContains",
    "matches": "regex",
}
NUMBER = {
    "equals": "equals",
    "not_equals": "notEquals",
    "greater_than": "gt",
    "less_than": "lt",
    "at_least": "gte",
    "at_most": "lte",
}
DATE = {
    "equals": "equals",
    "not_equals": "notEquals",
    "greater_than": "after",
    "less_than": "before",
    "at_least": "afterOrEquals",
    "at_most": "beforeOrEquals",
}
NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")


def format_version(type_version: float) -> int:
    """The filter format version of Filter/If 2.x (their description's own rule)."""
    return 3 if type_version >= 2.3 else 2 if type_version >= 2.2 else 1


def comparison(field: str, operator: str, value: str) -> dict[str, Any] | None:
    """One n8n filter condition, or None when n8n has no such comparison for the value."""
    value = str(value).strip()
    if NUMERIC.match(value.replace(",", "")) and operator in NUMBER:
        kind, operation = "number", NUMBER[operator]
        right: Any = float(value.replace(",", ""))
        right = int(right) if right.is_integer() else right
    elif ISO_DATE.match(value) and operator in DATE:
        kind, operation, right = "dateTime", DATE[operator], value
    elif operator in TEXT:
        kind, operation, right = "string", TEXT[operator], value
    else:
        return None
    return {
        "id": str(uuid.uuid5(NAMESPACE, f"{field} {operator} {value}")),
        "leftValue": "={{ " + field_ref(field) + " }}",
        "rightValue": right,
        "operator": {"type": kind, "operation": operation},
    }


def condition_parameters(
    config: dict[str, Any], type_version: float
) -> tuple[dict[str, Any], list[str]]:
    """The Filter/If node's parameters and its notes (the user's sentence, what is left)."""
    field, operator = str(config.get("field", "")), str(config.get("operator", ""))
    value = str(config.get("value", ""))
    condition = comparison(field, operator, value)
    notes = [f"Only continue when: {config['quote']}"] if config.get("quote") else []
    if condition is None:
        said = f"{field} {operator.replace('_', ' ')} {value}"
        notes.append(
            f"Set the condition by hand: {said} (n8n compares only numbers and dates that way)."
        )
    parameters = {
        "conditions": {
            "options": {
                "caseSensitive": True,
                "leftValue": "",
                "typeValidation": "loose",
                "version": format_version(type_version),
            },
            "conditions": [condition] if condition else [],
            "combinator": "and",
        },
        "looseTypeValidation": True,
        "options": {},
    }
    return parameters, notes


def describe(config: dict[str, Any]) -> str:
    """The condition in words, for the node's name: 'rating at most 1'."""
    operator = str(config.get("operator", "")).replace("_", " ")
    return f"{config.get('field', '')} {operator} {config.get('value', '')}".strip()
