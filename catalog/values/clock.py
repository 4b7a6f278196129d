"""Times of day said in words, written as a clock would: "half past eight" is 8:30. Pure.

The schedule reader (crons.py) reads digits ("8:30", "at 9", "5pm"); people also say the
time: "half past eight", "quarter to nine", "eight thirty", "nine o'clock", "at seven",
British "half eight". Each becomes the digits it means, in place, before the reader runs.
"""

from __future__ import annotations

import re

HOURS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve")  # fmt: skip
HOUR = r"(" + "|".join(HOURS) + r"|1[0-2]|0?[1-9])"
MINUTES = {"fifteen": 15, "thirty": 30, "forty five": 45, "forty-five": 45, "o'clock": 0,
           "oclock": 0, "o’clock": 0}  # fmt: skip
PAST = re.compile(rf"\b(half|quarter)\s+past\s+{HOUR}\b")
TO = re.compile(rf"\bquarter\s+to\s+{HOUR}\b")
HALF = re.compile(rf"\bhalf\s+{HOUR}\b(?!\s*(?:hours?|days?|weeks?|months?|of\b))")
AFTER = re.compile(rf"\b{HOUR}\s+(" + "|".join(map(re.escape, MINUTES)) + r")(?!\w)")
# "at seven" only where a time ends there ("at seven, every day"), not "at one point".
AT = re.compile(
    rf"\b(at|around|about|by)\s+{HOUR}\b"
    r"(?=\s*(?:$|[,;!?)]|[.:](?!\d)|[ap]\.?m\b|in\s+the\b|sharp\b|on\b|every\b|each\b|daily\b|and\b))"
)


def spoken(sentence: str) -> str:
    """The sentence with each time said in words written as digits; the rest unchanged."""
    out = PAST.sub(lambda m: _clock(m[2], 30 if m[1] == "half" else 15), sentence)
    out = TO.sub(lambda m: _clock(m[1], 45, back=True), out)
    # "six o'clock" is the hour as "at 6" says it, so a part of the day beside it still counts.
    out = AFTER.sub(
        lambda m: _clock(m[1], MINUTES[m[2]]) if MINUTES[m[2]] else str(_hour(m[1])), out
    )
    out = HALF.sub(lambda m: _clock(m[1], 30), out)
    return AT.sub(lambda m: f"{m[1]} {_hour(m[2])}", out)


def _clock(hour: str, minute: int, back: bool = False) -> str:
    """ "8:30" for ("eight", 30); quarter to one is 12:45."""
    number = _hour(hour) - back
    return f"{number or 12}:{minute:02d}"


def _hour(word: str) -> int:
    return HOURS.index(word) + 1 if word in HOURS else int(word)
