"""Languages the user named, as ISO 639-1 codes, and which way a translation goes. Pure.

"translate it into Polish" names the target, "letters in German" more often the source:
a language after into/to ranks first, after in second, one merely named last (English,
the usual source, below the others).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catalog.values.stated import Candidate

CODES = {
    "english": "en", "german": "de", "french": "fr", "spanish": "es", "italian": "it",
    "portuguese": "pt", "dutch": "nl", "polish": "pl", "arabic": "ar", "japanese": "ja",
    "chinese": "zh", "mandarin": "zh", "korean": "ko", "russian": "ru", "ukrainian": "uk",
    "turkish": "tr", "greek": "el", "swedish": "sv", "norwegian": "no", "danish": "da",
    "finnish": "fi", "czech": "cs", "slovak": "sk", "hungarian": "hu", "romanian": "ro",
    "bulgarian": "bg", "croatian": "hr", "serbian": "sr", "slovenian": "sl", "hebrew": "he",
    "hindi": "hi", "urdu": "ur", "bengali": "bn", "punjabi": "pa", "tamil": "ta",
    "vietnamese": "vi", "thai": "th", "indonesian": "id", "malay": "ms", "tagalog": "tl",
    "filipino": "tl", "persian": "fa", "farsi": "fa", "swahili": "sw", "catalan": "ca",
    "welsh": "cy", "irish": "ga", "lithuanian": "lt", "latvian": "lv", "estonian": "et",
}  # fmt: skip
NAME = r"(" + "|".join(CODES) + r")\b"
# Languages joined by and/or after one preposition: "into Polish and Arabic".
INTO = re.compile(rf"\b(into|to|in|from)\s+{NAME}((?:\s*(?:,|and|or)\s*{NAME})*)", re.IGNORECASE)
BARE = re.compile(rf"\b{NAME}", re.IGNORECASE)
# "an English version", "a French translation": the language wanted.
VERSION = re.compile(rf"\b{NAME}\s+(?:version|translation|copy)", re.IGNORECASE)
RANKS = {"into": 0, "to": 0, "in": 1}
# Names that are also ordinary words count only when capitalised ("polish the wording").
ORDINARY = {"polish"}


def code(name: str) -> str:
    """The ISO 639-1 code of a language name."""
    return CODES[name.lower()]


def candidates(text: str) -> list[Candidate]:
    """Every language the text names, with the properties it can fill and how directly."""
    from catalog.values.stated import Candidate

    out, seen = [], set()
    for m in INTO.finditer(text):
        word = m[1].lower()
        targets = ("source_language",) if word == "from" else ("target_language", "language")
        for each in re.finditer(NAME, m[0][len(m[1]) :], re.IGNORECASE):
            if not _language(each[1]):
                continue
            at = m.start() + len(m[1]) + each.start()
            seen.add(at)
            out.append(Candidate(at, at + len(each[1]), targets, code(each[1]), RANKS.get(word, 0)))
    for m in VERSION.finditer(text):
        if _language(m[1]):
            seen.add(m.start())
            out.append(Candidate(m.start(), m.end(1), ("target_language",), code(m[1])))
    for m in BARE.finditer(text):
        if m.start() not in seen and _language(m[1]):
            rank = 3 if m[1].lower() == "english" else 2
            out.append(
                Candidate(m.start(), m.end(), ("target_language", "language"), code(m[1]), rank)
            )
    return out


def _language(word: str) -> bool:
    return word.lower() not in ORDINARY or word[0].isupper()
