"""Which app a value the user stated belongs to: the app referred to in its sentence. Pure.

"Post it in #support on Slack and email sales@acme.com via Gmail": the channel is Slack's,
the address Gmail's, because each sits nearest to the app of its sentence that can take it.
A value in a sentence that names no such app belongs to no app in particular (any node
that can take it may), and a kind of value only one app can take is always that app's.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache

from catalog import load_catalogue
from catalog.matcher import hits
from catalog.operations import load_operations
from catalog.phrases import REF, Hit

# A sentence ends at a full stop followed by a space (so "acme.com" is one word), or a line.
SENTENCE_END = re.compile(r"[.!?;…]+(?=\s|\Z)|\n")


def sentence_span(text: str, pos: int) -> tuple[int, int]:
    """Start and end of the sentence holding `pos`."""
    start = max((m.end() for m in SENTENCE_END.finditer(text, 0, pos)), default=0)
    found = SENTENCE_END.search(text, pos)
    return start, found.start() if found else len(text)


@lru_cache(maxsize=32)
def references(text: str) -> tuple[Hit, ...]:
    """Every app reference in the user's words (the catalogue matcher's hits), in order."""
    return tuple(h for h in hits(text, load_catalogue()) if h.id != REF)


@lru_cache(maxsize=1)
def alias_words() -> frozenset[str]:
    """Every word of every app's aliases ("google", "sheets", "teams", ...)."""
    catalogue = load_catalogue()
    return frozenset(
        w for i in catalogue.ids for a in catalogue[i].aliases for w in a.lower().split()
    )


@lru_cache(maxsize=1)
def alias_phrases() -> frozenset[str]:
    """Every app's aliases, lower case ("google sheet", "microsoft teams")."""
    catalogue = load_catalogue()
    return frozenset(a.lower() for i in catalogue.ids for a in catalogue[i].aliases)


@lru_cache(maxsize=128)
def properties_of(app_id: str) -> frozenset[str]:
    """Every config property the app has, in its catalogue schema or any of its operations."""
    entry = load_catalogue().get(app_id)
    names = set(entry.config_schema["properties"]) if entry else set()
    try:
        app = load_operations()[app_id]
    except KeyError:
        return frozenset(names)
    for op in (*app.events, *app.actions):
        names |= set(op.config_schema["properties"])
    return frozenset(names)


@lru_cache(maxsize=256)
def takers(targets: frozenset[str]) -> tuple[str, ...]:
    """The catalogue apps that have a property among `targets`."""
    return tuple(i for i in load_catalogue().ids if properties_of(i) & targets)


def owner(
    text: str,
    span: tuple[int, int],
    targets: frozenset[str],
    apps: Collection[str] | None = None,
    words: tuple[int, int] | None = None,
) -> str | None:
    """The app a value said at text[span] belongs to: the nearest app of its sentence that
    can take it (among `apps`, the plan's, when given), or None when its sentence names none.
    A reference inside the value's own `words` ("label it 'angry-user'") is not one."""
    able = takers(targets)
    if len(able) == 1:
        return able[0]  # a cron is the scheduler's wherever it was said
    start, end = span
    low, high = sentence_span(text, start)
    near = [
        (max(0, h.start - end, start - h.end), h.id)
        for h in references(text)
        if low <= h.start < high
        and h.id in able
        and (apps is None or h.id in apps)
        and not (words and h.start < words[1] and words[0] < h.end)
    ]
    return min(near)[1] if near else None
