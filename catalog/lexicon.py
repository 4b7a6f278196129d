"""The paraphrase lexicon: how catalogue data states phrases, and finding them in text.

A lexicon phrase is plain words with three marks, so the data stays readable:
  `a|b|c`  one word out of several       ("into german|spanish|french")
  `word~`  the word or its inflections   ("text~ me": text, texts, texted, texting me)
  `*`      up to three words of any kind ("boil * down": "boil it down", "boil the notes down")
Everything else matches literally, case-insensitively, on word boundaries.
"""

from __future__ import annotations

import re
from functools import lru_cache

from catalog.model import Catalogue
from catalog.phrases import Hit, words

INFLECTION = r"(?:s|es|ed|d|ing)?"
# A gap word may carry a percent or currency sign ("work out the 21% VAT") or be a path
# ("GET each client's /health endpoint").
GAP = r"(?:[\w'’%$€£/.-]+\s+){0,3}?"


def _word(token: str) -> str:
    """One token of a phrase as a regex: its options, each maybe inflected."""
    options = [
        re.escape(option.rstrip("~")) + (INFLECTION if option.endswith("~") else "")
        for option in token.split("|")
    ]
    return f"(?:{'|'.join(options)})"


def phrase_regex(phrase: str) -> str:
    """A lexicon phrase as a regex (without the word boundaries at its ends)."""
    parts: list[str] = []
    for token in phrase.lower().split():
        parts.append(GAP if token == "*" else _word(token) + r"[\s-]+")
    # The separator after the last word (or a trailing gap) is not part of the phrase.
    joined = "".join(parts)
    return joined[: -len(r"[\s-]+")] if joined.endswith(r"[\s-]+") else joined


@lru_cache(maxsize=256)
def compiled(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for a tuple of phrases, longest first; None for no phrases."""
    if not phrases:
        return None
    return words("|".join(phrase_regex(p) for p in sorted(phrases, key=len, reverse=True)))


def _hits(text: str, catalogue: Catalogue, field: str) -> list[Hit]:
    """Every occurrence of every entry's phrases in `field` ("phrases" or "refs")."""
    found: list[Hit] = []
    for entry in catalogue.entries:
        pattern = compiled(getattr(entry, field))
        found += (
            [Hit(m.start(), m.end(), entry.id) for m in pattern.finditer(text)] if pattern else []
        )
    return found


def phrase_hits(text: str, catalogue: Catalogue) -> list[Hit]:
    """Every lexicon phrase occurrence of every entry, overlaps included."""
    return _hits(text, catalogue, "phrases")


def ref_hits(text: str, catalogue: Catalogue) -> list[Hit]:
    """Every back-reference ("the sheet", "that bucket") of every entry."""
    return _hits(text, catalogue, "refs")
