"""A model's claim of a stated value, checked: does its quote say it, which field it names.

A model may state a value in the form a config takes rather than the user's letters: a
language's code for "into Farsi", a five-field cron for "every weekday at half past eight".
Code accepts such a value only where its own reading of the quote gives the same value, so
a model can point at the right words but never invent what they mean. A model may also name
the config field a value belongs in ("calendar", "folder"); code accepts a name only when
one of the app's operations has a field of that name, so the field is the schema's, not
the model's. Pure.
"""

from __future__ import annotations

import re
from functools import lru_cache

from catalog.operations import operations_for
from catalog.values import crons, languages

CRON = re.compile(r"^(?:\S+\s+){4}\S+$")
# Fields a value never goes into: a message's whole text or a file's name pattern.
TEMPLATE = "_template"


def said(value: str, quote: str) -> bool:
    """The quote states the value: as its own words, or as code reads it in a config's form."""
    return words_of(value, quote) or read_as(value, quote)


def words_of(value: str, quote: str) -> bool:
    """The value is words of the quote, not letters inside a word ("en" is not in "then")."""
    pattern = rf"(?<!\w){re.escape(_squash(value))}(?!\w)"
    return bool(value.strip()) and re.search(pattern, _squash(quote)) is not None


def read_as(value: str, quote: str) -> bool:
    """A config-form value code's own reading of the quote gives: a language named in it
    ("fa" for "into Farsi"), or the cron of the schedule it states."""
    wanted = _squash(value)
    if wanted in languages.CODES.values():
        named = languages.BARE.findall(quote)
        return any(languages.code(name) == wanted for name in named)
    return bool(CRON.match(wanted)) and crons.cron(quote) == wanted


def field_named(app: str, name: str) -> str:
    """The config field of one of the app's operations that the model named ("" if none
    has it): its exact name, or the one field whose name has the named word ("channel" for
    "channel_id"). Message templates are never named fields."""
    word = "_".join(_squash(name).replace("-", " ").split())
    fields = fields_of(app)
    if word in fields:
        return word
    partial = [f for f in fields if word and word in f.split("_")]
    return partial[0] if len(partial) == 1 else ""


@lru_cache(maxsize=256)
def fields_of(app: str) -> tuple[str, ...]:
    """Every config field any operation of the app has, templates left out."""
    try:
        ops = operations_for(app)
    except KeyError:
        return ()
    names = {
        field
        for op in (*ops.events, *ops.actions)
        for field in op.config_schema.get("properties", {})
        if not field.endswith(TEMPLATE)
    }
    return tuple(sorted(names))


def _squash(text: str) -> str:
    return " ".join(text.lower().split())
