"""How the scripted oracle states a value the case expects, as a correct model would.

The case gives a value in a config's form ("fa", "30 8 * * 1-5", "7700900123"); a correct
model writes it as the user did where the user wrote it (the whole "07700900123"), in the
config's form where only reading gives it (a language's code, a cron), quotes the user's
words that say it (the place that names it, "called Viewings", before one where the word is
ordinary), and names the config field the quote speaks of ("a folder ... under X"). Code
checks every part of it (catalog/values/claimed.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from catalog.values import claimed, crons, languages

# The oracle's evidence windows (planwire/scripted.py).
Quotes = Callable[[str, str], list[str]]
SHORT = 4  # a field's words shorter than this ("to", "id") say nothing about it
LONG = 5  # a value this long is itself inside a longer word ("7700900123"), not letters of it
# The bound of evidence in the annotator's output schema (services/annotator/prompt.py).
MAX_EVIDENCE = 80


def claim(value: str, text: str, quotes: Quotes, sentences: list[str]) -> tuple[str, str] | None:
    """(the value as a correct model writes it, the user's words that say it), if they do."""
    for written in _forms(value, text):
        found = quotes(text, written)
        if found:
            exact = [q for q in found if written in q]  # the case as the user wrote it
            return written, (exact or found)[0]
    if value.lower() in languages.CODES.values():
        named = [n for n in languages.BARE.findall(text) if languages.code(n) == value.lower()]
        found = quotes(text, named[0]) if named else []
        return (value.lower(), found[0]) if found else None
    if claimed.CRON.match(value):
        timed = [s for s in sentences if crons.cron(s) == value]  # windows only of those
        said = [w for s in timed for w in _windows(s) if crons.cron(w) == value]
        return (value, said[0]) if said else None
    return None


def _windows(sentence: str) -> list[str]:
    """The sentence if it fits the evidence bound, else from each word the longest run of
    words that does."""
    if len(sentence) <= MAX_EVIDENCE:
        return [sentence]
    words, runs = sentence.split(), []
    for i in range(len(words)):
        fitting = (" ".join(words[i:j]) for j in range(len(words), i, -1))
        runs += [run for run in fitting if len(run) <= MAX_EVIDENCE][:1]
    return runs


def field_for(app: str, quote: str) -> str:
    """The one field of the app's operations the quote speaks of by name ("folder", a
    "calender" slip for calendar), or "" when none or several do."""
    words = set(re.findall(r"[a-z]+", quote.lower()))
    named = [
        f
        for f in claimed.fields_of(app)
        if any(len(w) >= SHORT and any(_near(w, u) for u in words) for w in f.split("_"))
    ]
    return named[0] if len(named) == 1 else ""


def _forms(value: str, text: str) -> list[str]:
    """The value itself, then the whole word of the text a long one sits inside
    ("07700900123"); a short one ("fa") inside a word is only letters of it."""
    inside = re.search(rf"[\w+]*{re.escape(value)}\w*", text, re.IGNORECASE)
    longer = inside is not None and inside[0] != value and len(value) >= LONG
    return [value, *([inside[0]] if inside and longer else [])]


def _near(word: str, other: str) -> bool:
    """The same word, or one slip apart in a word of five letters or more."""
    if word == other:
        return True
    if min(len(word), len(other)) < 5 or abs(len(word) - len(other)) > 1:
        return False
    if len(word) == len(other):
        return sum(a != b for a, b in zip(word, other, strict=True)) == 1
    short, long = sorted((word, other), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
