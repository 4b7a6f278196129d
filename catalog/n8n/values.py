"""Our config values as an n8n node's parameters, each shaped as its parameter's type asks.

A value n8n cannot take as it is never becomes a wrong parameter: it is left out and named
in the node's notes, as are the values still open (a filler the specialist step put where
the conversation gave none), so the person sees in n8n what is left to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from catalog.n8n import shapes
from catalog.operations import N8nNode

# What the specialist step writes where the conversation gave no value (its defaults in
# services/specialist/logic.py): a stand-in, not the user's, so it is left to fill in.
OPEN_SUFFIX = " to be chosen"
FILLERS = frozenset(
    {
        "https://example.com/api",
        "https://example.com/feed.xml",
        "+10000000000",
        "owner/repository",
        "PROJ",
        "planwire-workflows",
    }
)
TEMPLATE = re.compile(r"\{([^{}]{1,60})\}")
FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Notes:
    """What the person must still do in n8n for one node, in their words."""

    fill_in: list[str] = field(default_factory=list)
    choose: list[str] = field(default_factory=list)
    check: list[str] = field(default_factory=list)
    unset: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The notes as lines, the most pressing first."""
        parts = [
            ("To fill in", self.fill_in),
            ("Choose in n8n", self.choose),
            ("Check", self.check),
            ("Set by hand", self.unset),
            ("Not carried over (this n8n node has no such setting)", self.unknown),
        ]
        return [f"{title}: {'; '.join(items)}." for title, items in parts if items]


def is_open(value: Any) -> bool:
    """A stand-in the conversation never gave: '... to be chosen' or a known filler."""
    return isinstance(value, str) and (value.endswith(OPEN_SUFFIX) or value in FILLERS)


def label(prop: str) -> str:
    """Our property name as words: message_template -> message."""
    return prop.removesuffix("_template").replace("_", " ")


def in_words(prop: str, value: Any, quoted: bool = False) -> str:
    """A setting as a person reads it: "channel #ops", "columns date, amount", "include
    attachments" (a flag that is on); `quoted` for words the user dictated ('message "..."')."""
    if value is True:
        return label(prop)
    if quoted:
        return f'{label(prop)} "{value}"'
    said = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return f"{label(prop)} {said}"


def field_ref(name: str) -> str:
    """An n8n expression reading a field of the incoming item."""
    name = name.strip()
    return f"$json.{name}" if FIELD_NAME.match(name) else f"$json[{name!r}]"


def template(text: str, prop: str, notes: Notes) -> str:
    """User text with {field} placeholders as an n8n expression reading those fields."""
    names = TEMPLATE.findall(text)
    if not names:
        return text
    fields = ", ".join(f"{{{n}}}" for n in dict.fromkeys(names))
    notes.check.append(f"{label(prop)} uses {fields}, read from the step before")
    return "=" + TEMPLATE.sub(lambda m: "{{ " + field_ref(m.group(1)) + " }}", text)


def parameters(
    mapping: N8nNode, config: dict[str, Any], facts: dict[str, Any]
) -> tuple[dict[str, Any], Notes]:
    """The node's parameters for this config, and what is left to do."""
    kinds: dict[str, Any] = facts.get("parameters", {})
    params: dict[str, Any] = {k: v for k in ("resource", "operation") if (v := getattr(mapping, k))}
    for path, value in mapping.values.items():
        place(params, path, value, kinds)
    notes = Notes()
    for target, given in grouped(mapping, config).items():
        fill(params, target, given, kinds, notes)
    for prop, value in config.items():
        if prop in mapping.parameters or prop == "quote":
            continue
        if is_open(value):  # still to choose, wherever n8n keeps it (often the account)
            notes.fill_in.append(label(prop))
        else:
            notes.unknown.append(f"{label(prop)} = {shown(value)}")
    return params, notes


def grouped(
    mapping: N8nNode, config: dict[str, Any]
) -> dict[str | tuple[str, ...], dict[str, Any]]:
    """Our given values by the n8n parameter (or parameters) they fill."""
    groups: dict[str | tuple[str, ...], dict[str, Any]] = {}
    for prop, target in mapping.parameters.items():
        if prop in config:
            key = target if isinstance(target, str) else tuple(target)
            groups.setdefault(key, {})[prop] = config[prop]
    return groups


def fill(
    params: dict[str, Any],
    target: str | tuple[str, ...],
    given: dict[str, Any],
    kinds: dict[str, Any],
    notes: Notes,
) -> None:
    """Place one group of our values, or say in the notes why it is not placed."""
    if isinstance(target, tuple):
        return split(params, target, given, kinds, notes)
    kind = kinds.get(target, {}).get("type")
    composite = shapes.COMPOSITE.get(kind or "")
    if composite is not None:
        try:
            place(params, target, composite(target, given, notes), kinds)
            params.update(shapes.COMPANIONS.get(target, {}))
        except shapes.Unshaped:
            notes.unset += [f"{label(p)} = {shown(v)}" for p, v in given.items()]
        return None
    (prop, value), *rest = given.items()
    notes.unset += [f"{label(p)} = {shown(v)}" for p, v in rest]
    if is_open(value):
        notes.fill_in.append(label(prop))
        if kind == "resourceLocator":
            place(params, target, shapes.locator("", kinds[target]), kinds)
        return None
    try:
        place(params, target, scalar(prop, value, kinds.get(target, {}), notes), kinds)
    except shapes.Unshaped as why:
        if not why.choose:
            notes.unset.append(f"{label(prop)} = {shown(value)}")
            return None
        notes.choose.append(f"{label(prop)} {shown(value)}")
        if kind == "resourceLocator":  # the picker shows, empty, for the person to choose
            place(params, target, shapes.locator("", kinds[target]), kinds)
    return None


def split(
    params: dict[str, Any],
    targets: tuple[str, ...],
    given: dict[str, Any],
    kinds: dict[str, Any],
    notes: Notes,
) -> None:
    """One value filling several parameters, e.g. owner/repository -> owner and repository."""
    ((prop, value),) = given.items()
    parts = str(value).split("/")
    if is_open(value) or len(parts) != len(targets):
        notes.fill_in.append(label(prop))
        return
    for target, part in zip(targets, parts, strict=True):
        place(params, target, scalar(prop, part, kinds.get(target, {}), notes), kinds)


def scalar(prop: str, value: Any, fact: dict[str, Any], notes: Notes) -> Any:
    """One value shaped for a parameter of this fact's type; Unshaped when it cannot be."""
    kind = fact.get("type")
    if kind == "string" and prop == "field" and isinstance(value, str):
        notes.check.append(f"reads the field {value} of the step before")
        return "={{ " + field_ref(value) + " }}"  # our `field` names a field, not the text
    if kind == "string" and isinstance(value, str):
        return template(value, prop, notes)
    if isinstance(value, str) and TEMPLATE.search(value):
        raise shapes.Unshaped()  # a placeholder only a text parameter can read
    return shapes.SCALAR.get(kind or "", shapes.unshaped)(value, fact)


def place(params: dict[str, Any], path: str, value: Any, kinds: dict[str, Any]) -> None:
    """Set a dotted parameter path, making the collections (and fixedCollection entries) on the way."""
    parts, here, index = path.split("."), params, 0
    while index < len(parts) - 1:
        fact = kinds.get(".".join(parts[: index + 1]), {})
        container = here.setdefault(parts[index], {})
        if fact.get("type") == "fixedCollection":
            group = parts[index + 1]
            if fact.get("multiple"):
                here = container.setdefault(group, [{}])[0]
            else:
                here = container.setdefault(group, {})
            index += 2
        else:
            here, index = container, index + 1
    here[parts[-1]] = value


def shown(value: Any) -> str:
    """A value as the notes show it."""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)
