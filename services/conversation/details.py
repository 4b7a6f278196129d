"""The details a person checks in a confirmation: each step's values as the user stated them
and the conditions they set. Read from the user's own words by the same rules the specialist
uses to write the configs (catalog/values), so what is shown is what will be built.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from catalog import Catalogue
from catalog.operations import operations_for
from catalog.values.conditions import OPERATORS, Condition, stated_conditions, with_read
from catalog.values.fromwords import value_from_text
from schemas.turn import StatedCondition

# Properties whose value is wording the workflow writes, not a setting a person checks.
WORDING = {"message_template", "body", "text", "title_template", "description_template"}
MAX_VALUES = 5


def schema_of(item: str, operation: str | None, catalogue: Catalogue) -> dict[str, Any]:
    """The config schema of the step's operation (the catalogue entry's without one)."""
    ops = operations_for(item)
    found = next((o for o in (*ops.events, *ops.actions) if o.id == operation), None)
    return found.config_schema if found else catalogue[item].config_schema


def step_values(
    item: str, operation: str | None, words: str, apps: Collection[str], catalogue: Catalogue
) -> list[str]:
    """ "channel #ops", "cron 0 7 * * 1": the values the user stated for this step."""
    if not words:
        return []
    properties = schema_of(item, operation, catalogue).get("properties", {})
    shown = []
    for name, spec in properties.items():
        if name in WORDING:
            continue
        value = value_from_text(item, name, spec, words, properties, apps)
        label = name.replace("_", " ")
        if value is True:
            shown.append(label)  # "include attachments"
        elif value not in (None, "", [], False):
            said = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            shown.append(f"{label} {said}")
    return shown[:MAX_VALUES]


def condition_lines(
    words: str, steps: Collection[str] | None = None, read: Sequence[StatedCondition] = ()
) -> list[str]:
    """'Only when amount is over 150 ("...")' for each condition the user stated, with the
    user's words, so a person can check the reading; `steps`: the workflow's; `read`: the
    conditions a checked model read beside code's (Notes.conditions)."""
    found = with_read(stated_conditions(words, steps) if words else [], read, words)
    return [f'Only when {describe(c)} ("{c.quote[:120]}")' for c in found]


def describe(condition: Condition) -> str:
    """A condition in words: its field, how it compares, its value."""
    operator = OPERATORS.get(condition.operator, condition.operator.replace("_", " "))
    # A field nobody named ("only orders over 100") is no word the user said.
    field = "" if condition.field == "value" else condition.field.replace("_", " ") + " "
    return f"{field}{operator} {condition.value}"
