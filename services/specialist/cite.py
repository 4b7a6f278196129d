"""Which turns a config came from: the user's messages that say each value. Pure functions.

The composer cites them in the workflow document (`nodes[].sources`), so a reader can see
that "currency": "EUR" came from turn 3 even when turn 3 was trimmed from every prompt.
Only values code can read from words are cited (the same extraction the heuristic uses);
defaults and the model's free text cite nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalog import CatalogueEntry
from schemas.outline import IndexedTurn
from services.specialist import logic

MAX_TURNS = 5  # per field: the earliest turns that say it


def sources(
    entry: CatalogueEntry, config: dict[str, Any], turns: Mapping[int, IndexedTurn]
) -> dict[str, list[int]]:
    """`{field: [turn numbers]}` for each config value some user turn states."""
    properties = entry.config_schema.get("properties", {})
    found: dict[str, list[int]] = {}
    for name, value in config.items():
        spec = properties.get(name, {})
        said = [s for s in sorted(turns) if _says(entry.id, name, spec, value, turns[s].text)]
        if said:
            found[name] = said[:MAX_TURNS]
    return found


def _says(specialist: str, name: str, spec: dict[str, Any], value: Any, text: str) -> bool:
    extracted = logic.value_from_text(specialist, name, spec, text)
    if extracted is None:
        return False
    if isinstance(value, list):
        items = extracted if isinstance(extracted, list) else [extracted]
        return bool(set(map(str, items)) & set(map(str, value)))
    return bool(extracted == value)
