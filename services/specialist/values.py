"""Is a config value plausible? Checks a JSON Schema cannot make. Pure functions, no I/O.

A weak model fills a schema with well-formed nonsense: an ISO timestamp as a cron and as a
time zone, the prompt's own words as a title, "Your message here" as a template. These
rules name what is wrong with one value, so code can replace it (logic.ground):
- a cron, a time zone, a language code must really be one;
- nothing may echo the step's prompt;
- free text must be grounded: a {placeholder}, or a word the user used.
"""

from __future__ import annotations

import re
import zoneinfo
from typing import Any

from shared.grounding import content_words, grounded

__all__ = ["content_words", "grounded", "problem"]

PROMPT_ECHO = re.compile(
    r"your task|step \d+ of \d+|not instructions|artifacts? of earlier steps|reference data|reply with (?:json|the)|"
    r"matching the schema|use only to",
    re.IGNORECASE,
)
LANGUAGE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?$")
LANGUAGE_FIELDS = ("language", "target_language", "source_language")
CRON_PART = re.compile(r"^(\*|\d{1,2}(?:-\d{1,2})?)(?:/(\d{1,2}))?$")
CRON_BOUNDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))
CRON_NAMES = {
    name: str(i) for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))
} | {
    name: str(i)
    for i, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}


def echoes_prompt(text: str) -> bool:
    """True when the text repeats the step's scaffolding instead of answering it."""
    return bool(PROMPT_ECHO.search(text))


def is_cron(text: str) -> bool:
    """A five-field cron expression whose numbers are in range."""
    fields = text.lower().split()
    return len(fields) == 5 and all(
        _cron_field(f, bounds) for f, bounds in zip(fields, CRON_BOUNDS, strict=False)
    )


def _cron_field(field: str, bounds: tuple[int, int]) -> bool:
    for part in field.split(","):
        found = CRON_PART.match(
            re.sub(r"[a-z]{3}", lambda m: CRON_NAMES.get(m.group(0), "x"), part)
        )
        if not found:
            return False
        numbers = [int(n) for n in re.findall(r"\d+", found.group(1))]
        if any(not bounds[0] <= n <= bounds[1] for n in numbers) or (
            found.group(2) and int(found.group(2)) == 0
        ):
            return False
    return True


def is_timezone(text: str) -> bool:
    """An IANA time zone name this machine (or the tzdata package) knows."""
    try:
        zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


SEMANTIC_CHECKS = {
    "cron": (is_cron, "not_a_cron"),
    "timezone": (is_timezone, "not_a_timezone"),
    **dict.fromkeys(LANGUAGE_FIELDS, (lambda text: bool(LANGUAGE.match(text)), "not_a_language")),
}


def problem(name: str, spec: dict[str, Any], value: Any, user_words: set[str]) -> str | None:
    """What is wrong with a model's scalar value for property `name`, or None if it may stay."""
    if not isinstance(value, str) or "enum" in spec:
        return None  # numbers, booleans and enum choices: the schema already bounds them
    if echoes_prompt(value):
        return "echoes_prompt"
    if name in SEMANTIC_CHECKS:
        check, rule = SEMANTIC_CHECKS[name]
        return None if check(value) else rule
    if "pattern" in spec or "format" in spec:
        return None  # shaped by the schema: an id, a phone number, a URL
    return None if grounded(value, user_words) else "not_in_user_words"
