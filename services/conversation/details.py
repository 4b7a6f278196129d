"""The details a person checks in a confirmation: each step's values as the user stated them
and the conditions they set. Read from the user's own words by the same rules the specialist
uses to write the configs (catalog/values), so what is shown is what will be built.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from catalog import Catalogue
from catalog.n8n.values import in_words
from catalog.operations import operations_for
from catalog.values import crons
from catalog.values.conditions import OPERATORS, Condition, stated_conditions, with_read
from catalog.values.fromwords import value_from_text
from catalog.values.stated import DICTATED_FIELDS as DICTATED
from catalog.values.stated import WORDING_FIELDS as WORDING
from schemas.turn import StatedCondition

MAX_VALUES = 5


def schema_of(item: str, operation: str | None, catalogue: Catalogue) -> dict[str, Any]:
    """The config schema of the step's operation (the catalogue entry's without one)."""
    ops = operations_for(item)
    found = next((o for o in (*ops.events, *ops.actions) if o.id == operation), None)
    return found.config_schema if found else catalogue[item].config_schema


def stated_config(
    item: str, operation: str | None, words: str, apps: Collection[str], catalogue: Catalogue
) -> dict[str, Any]:
    """The config values the user stated for this step, by property (wording left out)."""
    if not words:
        return {}
    properties = schema_of(item, operation, catalogue).get("properties", {})
    found = {
        name: value_from_text(item, name, spec, words, properties, apps)
        for name, spec in properties.items()
        if name not in WORDING
    }
    return {name: value for name, value in found.items() if value not in (None, "", [], False)}


def labelled(values: dict[str, Any]) -> list[str]:
    """ "channel #ops", "include attachments": config values as a person reads them."""
    shown = [in_words(name, value, name in DICTATED) for name, value in values.items()]
    return shown[:MAX_VALUES]


def schedule_words(values: dict[str, Any]) -> str:
    """ "every day at 18:00 (cron 0 18 * * *), UTC unless you tell me your time zone": when a
    scheduled step runs, in words and as the cron that will be saved; the values it used
    are taken out of `values`."""
    cron, zone = values.pop("cron", None), values.pop("timezone", None)
    if not cron:
        return ""
    if zone:
        return f"{crons.in_words(str(cron))}, time zone {zone} (cron {cron})"
    return f"{crons.in_words(str(cron))} (cron {cron}), UTC unless you tell me your time zone"


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
