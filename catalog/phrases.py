"""Positioned hits of catalogue aliases in text: whole words, case-insensitive.

Positions matter (not just ids) because removal phrases apply to the items right after
them, and because the last reference to an item decides whether it stays.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from catalog.model import Catalogue

# Letters, digits or "_" on either side mean the alias is part of a longer word
# ("steams", "xslacky"); \w is Unicode-aware, so accented letters count too.
BEFORE, AFTER = r"(?<!\w)", r"(?!\w)"


# What ends a sentence for the rules that look no further than one.
# An ellipsis ends a thought as a full stop does ("a weekly digest… nah, forget that").
SENTENCE_END = re.compile(r"[.!?;\n…]")
SENTENCE = re.compile(r"[^.!?;\n…]+")
# The id of a back-reference hit ("the sheet"): a place a removal may reach, not an item.
REF = "@ref"


def sentence_start(text: str, pos: int) -> int:
    """Where the sentence holding `pos` begins."""
    return max((m.end() for m in SENTENCE_END.finditer(text, 0, pos)), default=0)


class Hit(NamedTuple):
    """One catalogue reference: text[start:end] names `id`."""

    start: int
    end: int
    id: str


def words(pattern: str) -> re.Pattern[str]:
    """A case-insensitive pattern that must start and end on word boundaries."""
    return re.compile(f"{BEFORE}(?:{pattern}){AFTER}", re.IGNORECASE)


def alias_regex(alias: str) -> str:
    # Multi-word aliases also match when written with one hyphen or other whitespace, and
    # in the plural ("both of their Google Calendars"): a product name of two words is no
    # ordinary word that an extra "s" could turn into one.
    parts = alias.split()
    plural = "s?" if len(parts) > 1 and not alias.endswith("s") else ""
    return r"(?:\s|-)".join(re.escape(word) for word in parts) + plural


@lru_cache(maxsize=16)
def _compiled(
    key: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[tuple[str, re.Pattern[str]], ...]:
    # Longest alias first so the fuller phrase is preferred where both fit.
    return tuple(
        (id_, words("|".join(alias_regex(a) for a in sorted(aliases, key=len, reverse=True))))
        for id_, aliases in key
    )


def alias_hits(text: str, catalogue: Catalogue) -> list[Hit]:
    """Every alias occurrence of every entry, overlaps included."""
    key = tuple((entry.id, entry.aliases) for entry in catalogue.entries)
    return [
        Hit(m.start(), m.end(), id_)
        for id_, pattern in _compiled(key)
        for m in pattern.finditer(text)
    ]


def without_overlaps(hits: list[Hit]) -> list[Hit]:
    """Keep the earliest, then longest, of overlapping hits, in text order."""
    kept: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (h.start, h.start - h.end)):
        if not kept or hit.start >= kept[-1].end:
            kept.append(hit)
    return kept


def within(hits: list[Hit], start: int, stop: int) -> set[int]:
    """Indices of the hits that lie wholly inside text[start:stop]."""
    return {i for i, hit in enumerate(hits) if start <= hit.start and hit.end <= stop}
