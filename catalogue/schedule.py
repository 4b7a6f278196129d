"""Explicit schedules ("every Monday morning", "nightly", "at 2am") as scheduler hits.

Only recurring times count. Volumes and ranges that merely contain time words ("two
hundred items a month", "the last 30 days", "Berlin time", "Timestamps") do not, and
neither does "every time", which describes an event trigger, not a schedule.
"""

from __future__ import annotations

from catalogue.phrases import Hit, words

WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
DAYPART = r"(?:morning|afternoon|evening|night)"
PERIOD = rf"(?:{WEEKDAY}|{DAYPART}|day|weekday|weekend|week|month|quarter|year|hour|minute|half\s+hour)"
COUNT = r"(?:\d+|a\s+few|few|couple\s+of|two|three|four|five|six|ten|twelve|fifteen|twenty|thirty|forty-five)"
UNIT = r"(?:minute|hour|day|week|month)s"
CLOCK_12 = r"\d{1,2}(?::[0-5]\d)?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)"
CLOCK_24 = r"(?:[01]?\d|2[0-3])[:h][0-5]\d"
CRON_FIELD = r"[\d*/,-]+"

SCHEDULE = words(
    "|".join(
        (
            rf"(?:every|each)\s+(?:other\s+|single\s+)?{PERIOD}(?:\s+{DAYPART})?",
            rf"every\s+{COUNT}\s+{UNIT}",
            r"daily|weekly|hourly|nightly|monthly|quarterly|yearly|annually|biweekly|fortnightly",
            rf"on\s+(?:{WEEKDAY}s|weekdays|weekends)",
            rf"{WEEKDAY}s?\s+{DAYPART}s",
            rf"(?:once|twice|\w+\s+times)\s+(?:a|per|every)\s+(?:day|week|month|hour)",
            rf"(?:at|around)\s+(?:{CLOCK_12}|{CLOCK_24}|noon|midnight)",
            r"cron(?:tab)?",
        )
    )
)
CRON_EXPRESSION = words(rf"(?:{CRON_FIELD}\s+){{4}}{CRON_FIELD}")


def _is_cron(expression: str) -> bool:
    # At least one '*' tells "0 9 * * 1" from a plain list of five numbers.
    return "*" in expression


def schedule_hits(text: str) -> list[Hit]:
    """Scheduler hits for every explicit recurring time in the text."""
    found = [Hit(m.start(), m.end(), "scheduler") for m in SCHEDULE.finditer(text)]
    return found + [Hit(m.start(), m.end(), "scheduler") for m in CRON_EXPRESSION.finditer(text) if _is_cron(m[0])]
