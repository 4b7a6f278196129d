"""The summarizer: tell the user what was built. Pure functions.

The model may phrase the summary; code guarantees that every node's display name appears
in it, appending the missing ones when the model left any out, and replaces a summary that
names no step at all (or echoes the prompt) with its own.
"""

from __future__ import annotations

import re
from typing import Any

from catalog import Catalogue
from catalog.n8n.values import OPEN_SUFFIX, in_words, is_open, label
from catalog.operations import load_operations
from catalog.values import crons
from catalog.values.conditions import OPERATORS
from catalog.values.stated import DICTATED_FIELDS as DICTATED
from catalog.values.stated import WORDING_FIELDS as WORDING
from services.specialist import values
from services.specialist.logic import PATTERNED

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


def does(node: dict[str, Any]) -> str:
    """What the node's operation does, as a person says it ("send a message"); its role's
    words for a document older than operations."""
    app, operation = app_of(node), node.get("operation")
    if app and operation:
        try:
            ops = load_operations()[app]
        except KeyError:
            ops = None
        found = ops and (ops.event(operation) or ops.action(operation))
        if found:
            return found.name.lower()
    return ROLE_WORDS.get(node.get("role", ""), "acts on it")


def step_line(node: dict[str, Any], catalogue: Catalogue) -> str:
    """One step in words: the app, what it does and the values the user gave it ("Telegram:
    send a message (chat id Packing Shed)"), or the condition it checks."""
    app = app_of(node)
    if app is None:
        config = node["config"]
        operator = config.get("operator", "")
        compared = operator in ("greater_than", "less_than", "at_least", "at_most")
        said = ("is " if compared else "") + OPERATORS.get(operator, operator)
        return f"only when the {config.get('field', 'value')} {said} {config.get('value', '')}"
    return f"{catalogue[app].name}: {does(node)}{highlights(node)}"


def heuristic_summary(document: dict[str, Any], catalogue: Catalogue) -> str:
    """A plain summary in the order the workflow runs: when it runs (a schedule in words,
    with its time zone) or what starts it, each step with the values the user gave, and
    what is still to fill in before it can run."""
    trigger = (document.get("trigger") or {}).get("node")
    schedule = document.get("schedule")
    steps = [n for n in document["nodes"] if not (schedule and n["id"] == trigger)]
    start = ""
    if schedule:
        by = next(
            (
                catalogue[a].name
                for n in document["nodes"]
                if n["id"] == trigger and (a := app_of(n))
            ),
            "",
        )
        start = (
            f" {by or 'It'} runs it {crons.in_words(schedule['cron'])}, time zone"
            f" {schedule['timezone']} (cron {schedule['cron']})."
        )
    lines = [f"{i}. {step_line(n, catalogue)}" for i, n in enumerate(steps, 1)]
    left = [
        f"{open_name(k, v)} for {catalogue[app].name}"
        for n in document["nodes"]
        if (app := app_of(n))
        for k, v in n.get("config", {}).items()
        if is_open(v)
    ]
    open_part = f" Still to fill in: {', '.join(left)}." if left else ""
    return (
        f'I built "{document["title"]}" and saved it as workflow {document["workflow_id"]}.'
        f"{start} Steps: " + "; ".join(lines) + "." + open_part
    )


def open_name(key: str, value: str) -> str:
    """What is left to choose: the stand-in's own words ("calculation" of "calculation to be
    chosen"), or for a filler ("+10000000000") what it stands for ("recipient")."""
    if value.endswith(OPEN_SUFFIX):
        return value.removesuffix(OPEN_SUFFIX)
    return PATTERNED.get(key, label(key))


def highlights(node: dict[str, Any], limit: int = 3) -> str:
    """The values the user gave the step (those its config cites turns for), as
    ' (channel #finance; columns date, amount)'; wording and stand-ins left out."""
    cited = node.get("sources") or {}
    shown = [
        in_words(key, value, key in DICTATED)
        for key, value in node.get("config", {}).items()
        if key in cited
        and key not in WORDING
        and not is_open(value)
        and value not in ("", [], None, False)
    ]
    return f" ({'; '.join(shown[:limit])})" if shown else ""


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
