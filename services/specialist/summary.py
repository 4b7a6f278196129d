"""The summarizer: tell the user what was built. Pure functions.

The model may phrase the summary; code guarantees that every node's display name appears
in it, appending the missing ones when the model left any out, and replaces a summary that
names no step at all (or echoes the prompt) with its own.
"""

from __future__ import annotations

import re
from typing import Any

from catalog import Catalogue
from catalog.values.conditions import OPERATORS
from services.specialist import values

ROLE_WORDS = {
    "trigger": "starts it",
    "source": "provides the data",
    "processor": "processes it",
    "action": "acts on it",
}
MAX_SUMMARY_CHARS = 4000


def display_names(document: dict[str, Any], catalogue: Catalogue) -> list[str]:
    """The display name of every node of the document, in order."""
    return [catalogue[app].name for n in document["nodes"] if (app := app_of(n))]


def app_of(node: dict[str, Any]) -> str | None:
    """The catalogue id of a node (v2 `app`, v1 `specialist`); None for a condition."""
    app = node.get("app") or node.get("specialist")
    return str(app) if app else None


def step_line(node: dict[str, Any], catalogue: Catalogue) -> str:
    """One step in words: the app and what it does, or the condition it checks."""
    app = app_of(node)
    if app is None:
        config = node["config"]
        operator = config.get("operator", "")
        compared = operator in ("greater_than", "less_than", "at_least", "at_most")
        said = ("is " if compared else "") + OPERATORS.get(operator, operator)
        return f"only when the {config.get('field', 'value')} {said} {config.get('value', '')}"
    return f"{catalogue[app].name} {ROLE_WORDS.get(node['role'], 'acts on it')}{highlights(node['config'])}"


def heuristic_summary(document: dict[str, Any], catalogue: Catalogue) -> str:
    """A plain summary naming every node, its role and the main config values."""
    steps = [f"{i}. {step_line(n, catalogue)}" for i, n in enumerate(document["nodes"], 1)]
    when = (
        f" It runs on the schedule '{document['schedule']['cron']}' ({document['schedule']['timezone']})."
        if document.get("schedule")
        else ""
    )
    return (
        f'I built "{document["title"]}" and saved it as workflow {document["workflow_id"]}.{when} Steps: '
        + "; ".join(steps)
        + "."
    )


def highlights(config: dict[str, Any], limit: int = 2) -> str:
    """The first few scalar config values, as ' (channel: #finance, ...)'."""
    shown = [
        f"{k}: {v}"
        for k, v in config.items()
        if isinstance(v, (str, int, float)) and not isinstance(v, bool)
    ][:limit]
    return f" ({', '.join(shown)})" if shown else ""


def missing_names(text: str, names: list[str]) -> list[str]:
    """Display names the text does not mention (whole words, any case)."""
    return [n for n in names if not re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.IGNORECASE)]


def usable(text: str, names: list[str]) -> bool:
    """A model's summary is worth keeping: it names at least one step and answers, not echoes."""
    return (
        len(text.strip()) >= 20
        and not values.echoes_prompt(text)
        and len(missing_names(text, names)) < len(names)
    )


def ensure_names(text: str, names: list[str]) -> tuple[str, bool]:
    """The text with every display name present; True when code had to add some."""
    missing = missing_names(text, names)
    if not missing:
        return text[:MAX_SUMMARY_CHARS], False
    suffix = " The workflow's steps: " + ", ".join(names) + "."
    return text.strip()[: MAX_SUMMARY_CHARS - len(suffix)] + suffix, True
