"""How one value, or a group of our values, is written for an n8n parameter of a given type.

Scalars (text, numbers, options, resource locators) by the parameter's type; composites
(a Set node's assignments, a column mapper, a few fixedCollections) from the group of our
values that fills them. Anything else raises Unshaped and is left to the person.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?")
NAMESPACE = uuid.UUID("6f1d3b1e-52a4-5b4e-9a57-2f7c4e1d8a90")


class Unshaped(ValueError):
    """The value cannot be written as this parameter asks; `choose`: pick it in n8n."""

    def __init__(self, choose: bool = False) -> None:
        super().__init__("not expressible as this parameter")
        self.choose = choose


def unshaped(_value: Any, _fact: dict[str, Any]) -> Any:
    """A parameter type the export does not write."""
    raise Unshaped()


def text(value: Any, _fact: dict[str, Any]) -> str:
    """Text: a list is joined, a number written out."""
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def number(value: Any, _fact: dict[str, Any]) -> int | float:
    """A number, or a numeric string read as one."""
    if isinstance(value, bool):
        raise Unshaped()
    try:
        parsed = float(value)
    except (TypeError, ValueError):
        raise Unshaped() from None
    return int(parsed) if parsed.is_integer() else parsed


def boolean(value: Any, _fact: dict[str, Any]) -> bool:
    """A yes/no value."""
    if isinstance(value, bool):
        return value
    raise Unshaped()


def option(value: Any, fact: dict[str, Any]) -> Any:
    """One of the listed options (letter case aside); a list loaded at run time takes it."""
    options = fact.get("options")
    if not options:
        return str(value)
    match = next((o for o in options if str(o).lower() == str(value).lower()), None)
    if match is None:
        raise Unshaped(choose=True)
    return match


def options(value: Any, fact: dict[str, Any]) -> list[Any]:
    """Several options."""
    return [option(v, fact) for v in (value if isinstance(value, list) else [value])]


def locator(value: Any, fact: dict[str, Any]) -> dict[str, Any]:
    """A resource locator: by URL, by name, by id; empty 'from list' when not known yet."""
    modes, value = fact.get("modes", []), str(value)
    if not value:
        return {"__rl": True, "mode": "list" if "list" in modes else modes[0], "value": ""}
    if value.startswith(("http://", "https://")) and "url" in modes:
        return {"__rl": True, "mode": "url", "value": value}
    if "name" in modes:
        return {"__rl": True, "mode": "name", "value": value}
    if "id" in modes and any(c.isdigit() for c in value) and not re.search(r"[#\s]", value):
        return {"__rl": True, "mode": "id", "value": value}
    raise Unshaped(choose=True)  # a name where n8n takes an id (or a pick from its list)


def date(value: Any, _fact: dict[str, Any]) -> str:
    """A date or date-time n8n can read."""
    if isinstance(value, str) and ISO_DATE.match(value):
        return value
    raise Unshaped()


SCALAR: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    "string": text,
    "number": number,
    "boolean": boolean,
    "options": option,
    "multiOptions": options,
    "resourceLocator": locator,
    "dateTime": date,
}


def assignments(target: str, given: dict[str, Any], notes: Any) -> dict[str, Any]:
    """A Set node's assignment of a calculation: the field, its formula left to write."""
    name = str(given.get("output_field") or "result")
    if "expression" in given:
        notes.fill_in.append(f"{name}: write {given['expression']} as an n8n expression")
    if "decimals" in given:
        notes.check.append(f"round {name} to {given['decimals']} decimals")
    entry = {"id": str(uuid.uuid5(NAMESPACE, name)), "name": name, "value": "", "type": "number"}
    return {"assignments": [entry]}


def column_mapper(target: str, given: dict[str, Any], notes: Any) -> dict[str, Any]:
    """Columns filled from the incoming item's fields of the same names."""
    columns = [c for v in given.values() if isinstance(v, list) for c in v]
    match = [v for k, v in given.items() if k == "match_column" and isinstance(v, str)]
    schema = [
        {"id": c, "displayName": c, "required": False, "defaultMatch": False, "display": True,
         "type": "string", "canBeUsedToMatch": True}
        for c in dict.fromkeys([*match, *columns])
    ]  # fmt: skip
    return {
        "mappingMode": "autoMapInputData",
        "value": {},
        "matchingColumns": match,
        "schema": schema,
    }


def fixed_collection(target: str, given: dict[str, Any], notes: Any) -> dict[str, Any]:
    """The few fixedCollections an export writes, by the parameter they are."""
    writer = FIXED.get(target)
    if writer is None:
        raise Unshaped()
    return writer(given, notes)


def _poll_times(given: dict[str, Any], _notes: Any) -> dict[str, Any]:
    minutes = number(given.get("poll_minutes"), {})
    return {"item": [{"mode": "everyX", "value": minutes, "unit": "minutes"}]}


def _headers(given: dict[str, Any], _notes: Any) -> dict[str, Any]:
    pairs = [str(h).partition(":") for h in given.get("headers", [])]
    if any(not sep for _n, sep, _v in pairs):
        raise Unshaped()
    return {"parameters": [{"name": n.strip(), "value": v.strip()} for n, _s, v in pairs]}


def _query(given: dict[str, Any], _notes: Any) -> dict[str, Any]:
    return {"parameters": [{"name": k, "value": str(v)} for k, v in given.items()]}


def _prompt(given: dict[str, Any], notes: Any) -> dict[str, Any]:
    words = f" in at most {given['max_words']} words" if "max_words" in given else ""
    style = " as bullet points" if given.get("style") == "bullets" else ""
    focus = f" Focus on {given['focus']}." if given.get("focus") else ""
    notes.check.append("the prompt sends the whole item; name the field to summarize")
    return {
        "messages": [
            {"role": "system", "content": f"Summarize the text{words}{style}.{focus}"},
            {"role": "user", "content": "={{ JSON.stringify($json) }}"},
        ]
    }


FIXED: dict[str, Callable[[dict[str, Any], Any], dict[str, Any]]] = {
    "pollTimes": _poll_times,
    "headerParameters": _headers,
    "queryParameters": _query,
    "prompt": _prompt,
}
# Parameters n8n shows only when a switch beside them is on.
COMPANIONS: dict[str, dict[str, Any]] = {"headerParameters": {"sendHeaders": True}}
COMPOSITE: dict[str, Callable[[str, dict[str, Any], Any], Any]] = {
    "assignmentCollection": assignments,
    "resourceMapper": column_mapper,
    "fixedCollection": fixed_collection,
}
