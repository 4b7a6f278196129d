"""What one message changed in the notes, said back to the user: pure rules, no I/O.

Built from the difference between the notes before the message and after it, so it states
only what the notes hold: "Added: Translator." "Left out Airtable ("we'll use Trello")."
"Changed the order: Translator now runs before Sentiment analysis."
"""

from __future__ import annotations

import itertools

from catalog import Catalogue
from catalog.flow import noted_ids, ordered, trigger_of
from schemas.turn import Notes

QUOTE_CHARS = 80


def added(before: Notes, after: Notes, catalogue: Catalogue) -> str:
    """'Added: X, Y.' for the apps wanted now that were not before."""
    new = [i for i in ordered(after, catalogue) if i not in noted_ids(before, catalogue)]
    return f"Added: {', '.join(catalogue[i].name for i in new)}." if new else ""


def left_out(before: Notes, after: Notes, catalogue: Catalogue) -> str:
    """'Left out X ("their words").' for each app turned down by this message."""
    was = {r.id: r for r in before.references}
    parts = []
    for ref in after.references:
        earlier = was.get(ref.id)
        if ref.role != "turned_down" or catalogue.get(ref.id) is None:
            continue
        if earlier is not None and earlier.role == "turned_down" and earlier.quote == ref.quote:
            continue
        name = catalogue[ref.id].name
        # Dropped for another app ("Teams instead"), its quote still says why it was wanted.
        stale = earlier is not None and earlier.quote == ref.quote
        quote = "" if stale else " ".join(ref.quote.split())
        if len(quote) > QUOTE_CHARS:
            quote = quote[: QUOTE_CHARS - 1].rstrip() + "…"
        parts.append(f'{name} ("{quote}")' if quote else name)
    return f"Left out {'; '.join(parts)}." if parts else ""


def reordered(before: Notes, after: Notes, catalogue: Catalogue) -> str:
    """'Changed the order: X now runs before Y.' when two steps kept from before swapped."""
    old = ordered(before, catalogue)
    new = [i for i in ordered(after, catalogue) if i in old]
    kept = [i for i in old if i in new]
    for first, second in itertools.combinations(new, 2):
        if kept.index(first) > kept.index(second):
            names = catalogue[first].name, catalogue[second].name
            return "Changed the order: {} now runs before {}.".format(*names)
    return ""


def restarted(before: Notes, after: Notes, catalogue: Catalogue) -> str:
    """'It now starts from X.' when what starts the workflow changed to something noted."""
    old, new = trigger_of(before, catalogue), trigger_of(after, catalogue)
    if new is None or old is None or old == new:
        return ""
    return f"It now starts from {catalogue[new].name}."


def acknowledgement(before: Notes, after: Notes, catalogue: Catalogue) -> str:
    """Everything this message changed, in plain sentences; "" when it changed no app."""
    parts = (
        added(before, after, catalogue),
        left_out(before, after, catalogue),
        restarted(before, after, catalogue),
        reordered(before, after, catalogue),
    )
    return " ".join(p for p in parts if p)
