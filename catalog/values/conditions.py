"""Conditions the user stated, as filter steps of the workflow. Pure functions, no I/O.

"only orders over $150", "if the total is more than 500", "skip tickets under 3 stars",
"when the review is negative", "tagged 'bug'": a field, an operator and a value, with the
user's sentence as the quote. Code reads the comparison from the words; it never invents a
value, and a sentence with no value it can read states no condition.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from catalog.structure import sentence_at as sentence_of
from catalog.values.names import names
from schemas.turn import StatedCondition

NUMBER = r"[$€£]?\s?(-?\d+(?:[.,]\d+)?)\s?(%|k\b|[$€£])?"
COMPARISONS = (
    (
        r"(?:more|greater|higher|bigger|larger)\s+than|over|above|exceeds?|exceeding|>\s?",
        "greater_than",
    ),
    (r"(?:less|lower|fewer|smaller)\s+than|under|below|<\s?", "less_than"),
    (r"at\s+least|minimum(?:\s+of)?|>=\s?", "at_least"),
    (r"at\s+most|no\s+more\s+than|maximum(?:\s+of)?|<=\s?", "at_most"),
    # "make the threshold $2,500", "raise the bar to 300": the limit a value must pass.
    (r"(?:threshold|bar|cut-?off|limit)\s+(?:to\s+|at\s+|of\s+|is\s+)?", "greater_than"),
)
# "within 45 days", "in the next 2 weeks": a date no further off than that.
WITHIN = re.compile(
    r"(?<!\w)(?:within|in\s+the\s+next|over\s+the\s+next)\s+(\d+)\s+(days?|weeks?|hours?|months?)",
    re.IGNORECASE,
)
THRESHOLD = re.compile(r"threshold|bar|cut-?off|limit", re.IGNORECASE)
# "$2,500 instead of $5,000": the value after "instead of" is the one the user moved from.
REPLACED = re.compile(rf"(?<!\w)(?:instead\s+of|rather\s+than)\s+(?:the\s+)?{NUMBER}", re.I)
COMPARED = [
    (re.compile(rf"(?<!\w)(?:{words})\s*{NUMBER}", re.IGNORECASE), operator)
    for words, operator in COMPARISONS
]
# "deposits of 150 or more", "$1,000 and up": the comparison said after the number.
COMPARED += [
    (re.compile(rf"(?<![\w.,]){NUMBER}\s*(?:{words})(?!\w)", re.IGNORECASE), operator)
    for words, operator in (
        (r"or\s+(?:more|above|higher|greater|over)|and\s+(?:up|over|above)", "at_least"),
        (r"or\s+(?:less|fewer|under|below|lower)|and\s+(?:under|below)", "at_most"),
    )
]
STARS = re.compile(r"(?<!\w)(\d)[\s-]?stars?(?!\w)", re.IGNORECASE)
KEYWORD = re.compile(
    r"(?<!\w)(?:tagged|labell?ed|marked|containing|contains|mentions?|with\s+the\s+(?:word|tag|label))"
    r"\s+(?:as\s+)?[\"'‘“]([^\"'’”\n]{1,60})[\"'’”]"
    # "has the word crash in it", "with the keyword EMBARGOED": one word, quoted or not.
    r"|(?<!\w)(?:with|has|have|having|contains?|containing|includes?|including)\s+the\s+"
    r"(?:word|phrase|keyword|term)\s+[\"'‘“]?([\w-]{2,30})",
    re.IGNORECASE,
)
MOOD = re.compile(r"(?<!\w)(negative|positive|angry|unhappy|upset|urgent)(?!\w)", re.IGNORECASE)
# A condition is said in a sentence that limits: "only", "if", "when", "skip", "unless".
LIMITING = re.compile(
    r"(?<!\w)(?:only|if|when|whenever|where|unless|skip|ignore|except|just\s+the)(?!\w)",
    re.IGNORECASE,
)
# Numbers that are times, dates or counts of a schedule are no threshold.
TIME_AFTER = re.compile(r"\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock|h\b|:\d\d)", re.IGNORECASE)
# "labelled bug", "tagged as urgent", "moves to Done", "status is Declined": a value a field takes.
TAKES = re.compile(
    r"(?<!\w)(?:tagged|labell?ed|marked|flagged)\s+(?:as\s+|with\s+)?[\"'‘“]?"
    r"(?!(?:for|by|to|in|on|as|with|the|a|an|and|or|so|if)\b)([\w-]{2,30})"
    r"|(?<!\w)(?:moves?|moved|goes|changes?|set)\s+(?:in)?to\s+[\"'‘“]?([A-Z][\w-]*(?:\s[A-Z][\w-]*)?)"
    r"|(?<!\w)(?:status|stage|state|column)\s+(?:is|=|of)\s+[\"'‘“]?([\w-]+)"
)
# A web domain or an address: "skip leads from gmail.com addresses", "only @acme.com senders".
DOMAIN = re.compile(
    r"(?<![\w.@-])@?((?:[\w-]+@)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})(?![\w@-])", re.IGNORECASE
)
DROPPING = re.compile(
    r"(?<!\w)(?:skip|ignore|except|exclude|excluding|without|not|no)(?!\w)", re.IGNORECASE
)
QUOTED = re.compile(r"[\"‘“]([^\"’”\n]{2,40})[\"’”]|(?<!\w)'([^'\n]{2,40})'(?!\w)")


# How each operator reads in a sentence ("Only when amount is over 150"): the confirmation,
# the page's step cards and the final summary say a condition the same way.
OPERATORS = {
    "greater_than": "over",
    "less_than": "under",
    "at_least": "at least",
    "at_most": "at most",
    "equals": "is",
    "not_equals": "is not",
    "contains": "contains",
    "not_contains": "does not contain",
    "matches": "matches",
}


@dataclass(frozen=True)
class Condition:
    """A filter the user stated: keep the items whose field compares so to the value."""

    field: str
    operator: str
    value: str
    quote: str
    at: int  # where in the user's words it was said

    def config(self) -> dict[str, str]:
        """The filter step's config (catalog/operations.json, conditions.filter)."""
        return {
            "field": self.field,
            "operator": self.operator,
            "value": self.value,
            "quote": self.quote,
        }


FEELINGS = {"negative", "positive", "angry", "unhappy", "upset"}


def stated_conditions(text: str, steps: Collection[str] | None = None) -> list[Condition]:
    """Every condition the words state, in order, each value once. With the workflow's
    `steps`, a condition on a feeling needs a step that reads one ("she gets upset if a
    donor waits" is no filter of a workflow that reads no mood)."""
    found = _stated(text)
    if steps is not None and "sentiment" not in steps:
        found = [c for c in found if not (c.field == "sentiment" and c.value in FEELINGS)]
    return found


def with_read(
    found: list[Condition], read: Sequence[StatedCondition], words: str
) -> list[Condition]:
    """Code's conditions, then each a checked model read (Notes.conditions) whose value code
    found none for, placed where the user said it."""
    values = {c.value.lower() for c in found}
    lowered = words.lower()
    extra = [
        Condition(c.field, c.operator, c.value, c.quote, max(lowered.find(c.quote.lower()), 0))
        for c in read
        if c.value.lower() not in values
    ]
    return sorted(found + extra, key=lambda c: c.at)


def _stated(text: str) -> list[Condition]:
    found: list[Condition] = []
    found_all = [*_compared(text), *_stars(text), *_keywords(text), *_takes(text), *_moods(text)]
    found_all += _within(text) + _domains(text)
    dropped = {m.group(1).replace(",", "") for m in REPLACED.finditer(text)}
    for condition in found_all + _quoted(text):
        if condition.value not in {c.value for c in found} | dropped:
            found.append(condition)
    return sorted(found, key=lambda c: c.at)


def _limited(text: str, pos: int) -> str | None:
    """The sentence holding pos, when it is one that limits; else None."""
    sentence = sentence_of(text, pos)
    return sentence.strip() if LIMITING.search(sentence) else None


def _compared(text: str) -> list[Condition]:
    found = []
    for pattern, operator in COMPARED:
        for match in pattern.finditer(text):
            sentence = _limited(text, match.start())
            if THRESHOLD.match(match.group(0)):  # a limit says itself that it limits
                sentence = sentence_of(text, match.start()).strip()
            if sentence is None or TIME_AFTER.match(text, match.end()):
                continue
            value = (
                match.group(1).replace(",", ".")
                if "," in match.group(1) and len(match.group(1).split(",")[1]) != 3
                else match.group(1).replace(",", "")
            )
            found.append(
                Condition(
                    _field(sentence, match.group(2)), operator, value, sentence, match.start()
                )
            )
    return found


def _field(sentence: str, unit: str | None) -> str:
    """What is compared, from the unit or the words ("total", "amount", "rating")."""
    if unit == "%":
        return "percentage"
    if unit in ("$", "€", "£"):
        return "amount"
    named = re.search(
        r"(?<!\w)(total|amount|price|value|rating|score|count|quantity|temperature|days?|stock)(?!\w)",
        sentence,
        re.IGNORECASE,
    )
    return named.group(1).lower() if named else "value"


def _stars(text: str) -> list[Condition]:
    return [
        Condition("rating", "at_most", m.group(1), sentence_of(text, m.start()).strip(), m.start())
        for m in STARS.finditer(text)
    ]


def _keywords(text: str) -> list[Condition]:
    return [
        Condition(
            "text",
            "contains",
            (m.group(1) or m.group(2)).strip(),
            sentence_of(text, m.start()).strip(),
            m.start(),
        )
        for m in KEYWORD.finditer(text)
    ]


def _within(text: str) -> list[Condition]:
    return [
        Condition(
            "days" if m[2].lower().startswith("day") else m[2].lower().rstrip("s") + "s",
            "at_most",
            m[1],
            sentence_of(text, m.start()).strip(),
            m.start(),
        )
        for m in WITHIN.finditer(text)
    ]


def _takes(text: str) -> list[Condition]:
    """A value a field takes: a label, a stage, a status."""
    found = []
    for match in TAKES.finditer(text):
        value = next(g for g in match.groups() if g)
        field = "label" if match.group(1) else "status"
        found.append(
            Condition(
                field, "equals", value, sentence_of(text, match.start()).strip(), match.start()
            )
        )
    return found


def _domains(text: str) -> list[Condition]:
    """A domain or address in a sentence that limits: kept, or skipped when the sentence drops."""
    found = []
    for match in DOMAIN.finditer(text):
        sentence = _limited(text, match.start())
        if sentence is not None and not re.match(
            r"https?:|www\.", text[max(0, match.start() - 8) : match.start() + 4]
        ):
            operator = "not_contains" if DROPPING.search(sentence) else "contains"
            found.append(Condition("email", operator, match.group(1), sentence, match.start()))
    return found


MARKS = {"label", "labels", "tags", "priority"}


def _quoted(text: str) -> list[Condition]:
    """Words quoted in a sentence that limits ("only the ones that say 'urgent'"); not a
    quoted name of a place the workflow writes to ("a card on our board 'Maintenance'"),
    which a step's config takes (catalog/values/names.py)."""
    found = []
    # (a label or a tag marks the items themselves: "the ones tagged 'test'" is a filter)
    named = {n.at for n in names(text) if not set(n.targets) & MARKS}
    for match in QUOTED.finditer(text):
        sentence = _limited(text, match.start())
        if sentence is not None and match.start() + 1 not in named:
            value = (match.group(1) or match.group(2)).strip()
            found.append(Condition("text", "contains", value, sentence, match.start()))
    return found


def _moods(text: str) -> list[Condition]:
    found = []
    for match in MOOD.finditer(text):
        sentence = _limited(text, match.start())
        if sentence is not None and re.search(
            r"(?<!\w)(?:if|only|when|just)(?!\w)", sentence, re.IGNORECASE
        ):
            found.append(
                Condition("sentiment", "equals", match.group(1).lower(), sentence, match.start())
            )
    return found
