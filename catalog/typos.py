"""Product names typed with a slip: "shopfiy", "twillio", "google calender".

A word that is one edit (two, for long names) from a product's name, and is no name itself,
refers to that product. Names that are also ordinary words ("stripe", "notion", "slack")
are left out: a word near them is far more often another ordinary word ("strip") than a
slip. Short names take only two letters swapped ("gmial", "jria" is too short): at five
letters any other edit reaches too many words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from catalog.model import Catalogue
from catalog.phrases import Hit

MIN_LENGTH = 6
SHORTEST = 5  # a swap of two letters is a slip from this length
LONG = 9  # from this length two edits still point at one name
# Words in any script: "µrss" is one word that holds "rss", not a slip of it after a "µ".
WORD = re.compile(r"[^\W\d_][^\W_]*")


def distance(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein distance (adjacent swaps count one), or limit + 1 once past it."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous, current = list(range(len(b) + 1)), [0] * (len(b) + 1)
    before = previous[:]
    for i, x in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cost = x != y
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                current[j] = min(current[j], before[j - 2] + cost)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return current[-1]


Names = tuple[tuple[str, tuple[str, ...]], ...]


def _names(catalogue: Catalogue) -> Names:
    """(id, alias words) of every alias that a slip may stand for."""
    return _slippable(
        tuple(
            (entry.id, entry.aliases)
            for entry in catalogue.entries
            if entry.kind == "integration" and not entry.ordinary
        )
    )


@lru_cache(maxsize=4)
def _slippable(entries: tuple[tuple[str, tuple[str, ...]], ...]) -> Names:
    return tuple(
        (id_, tuple(alias.lower().split()))
        for id_, aliases in entries
        for alias in aliases
        if len(alias.replace(" ", "")) >= SHORTEST
    )


def near(word: str, name: str) -> bool:
    """The word is a slip for the name word: not the same word, nor a longer word that holds
    the name ("awhatsapp" is another word, as "steams" is not "teams")."""
    limit = 2 if len(name) >= LONG else 1
    if word == name or name in word or len(word) < MIN_LENGTH - 1:
        return False
    if len(name) < MIN_LENGTH:
        return swapped(word, name)
    return distance(word, name, limit) <= limit


def swapped(word: str, name: str) -> bool:
    """The word is the name with two neighbouring letters swapped ("gmial")."""
    diff = [i for i, (a, b) in enumerate(zip(word, name, strict=False)) if a != b]
    return (
        len(word) == len(name)
        and len(diff) == 2
        and diff[1] == diff[0] + 1
        and (word[diff[0]], word[diff[1]]) == (name[diff[1]], name[diff[0]])
    )


def typo_hits(text: str, catalogue: Catalogue) -> list[Hit]:
    """Hits for product names with a slip in one of their words."""
    tokens = [(m.start(), m.end(), m.group().lower()) for m in WORD.finditer(text)]
    names = _names(catalogue)
    known, found = {w for _id, words in names for w in words}, []
    for i in range(len(tokens)):
        for id_, words in names:
            window = tokens[i : i + len(words)]
            if len(window) < len(words) or all(
                t[2] == w for t, w in zip(window, words, strict=True)
            ):
                continue
            slips = [(t, w) for t, w in zip(window, words, strict=True) if t[2] != w]
            if (
                len(slips) == 1
                and slips[0][0][2] not in known
                and near(slips[0][0][2], slips[0][1])
            ):
                found.append(Hit(window[0][0], window[-1][1], id_))
    return found
