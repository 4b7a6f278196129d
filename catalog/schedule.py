"""Explicit schedules ("every Monday morning", "nightly", "at 2am") as scheduler hits.

Only recurring times count. Volumes and ranges that merely contain time words (so many
items a month, the past N days, a city's time zone) do not, and neither does "every
time", which describes an event trigger, not a schedule. Common forms are patterns; for
the rest a recurrence parser (`recurrent`, which reads "Mondays to Fridays at 8" or "the
first of every month" as an RRULE) has the last word on each sentence the patterns left.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

from recurrent.event_parser import RecurringEvent

from catalog.phrases import SENTENCE, Hit, words

WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
DAYPART = r"(?:morning|afternoon|evening|night)"
PERIOD = (
    rf"(?:{WEEKDAY}|{DAYPART}|day|weekday|weekend|week|month|quarter|year|hour|minute|half\s+hour)"
)
COUNT = r"(?:\d+|a\s+few|few|couple\s+of|two|three|four|five|six|ten|twelve|fifteen|twenty|thirty|forty-five)"
UNIT = r"(?:(?:minute|hour|day|week|month)s|hrs|mins|wks)"
CLOCK_12 = r"\d{1,2}(?::[0-5]\d)?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)"
CLOCK_24 = r"(?:[01]?\d|2[0-3])[:h][0-5]\d"
ORDINAL = r"first|second|third|fourth|fifth|last|\d{1,2}(?:st|nd|rd|th)"
CRON_FIELD = r"[\d*/,-]+"

SCHEDULE = words(
    "|".join(
        (
            rf"(?:every|each)\s+(?:other\s+|single\s+)?{PERIOD}(?:\s+{DAYPART})?",
            rf"every\s+{COUNT}\s+{UNIT}",
            r"daily|weekly|hourly|nightly|monthly|quarterly|yearly|annually|biweekly|fortnightly",
            rf"on\s+(?:{WEEKDAY}s|weekdays?|weekends)",
            rf"{WEEKDAY}s?\s+(?:to|through|thru|until|-|–)\s+{WEEKDAY}s?",
            r"every\s+half\s+(?:an\s+)?hour",
            rf"{WEEKDAY}s?\s+{DAYPART}s",
            r"(?:once|twice|\w+\s+times)\s+(?:a|per|every)\s+(?:day|week|month|hour)",
            rf"(?:at|around|like|about|approx\.?)\s+(?:{CLOCK_12}|{CLOCK_24}|noon|midnight)",
            # "at 6 in the evening", "around 7 at night".
            rf"(?:at|around)\s+\d{{1,2}}(?::[0-5]\d)?\s+(?:in\s+the\s+{DAYPART}|at\s+night)",
            # Relative to each event: "the day before the appointment", "2 hours ahead of each shift".
            rf"(?:the\s+)?(?:day|night|evening|morning|week|{COUNT}\s+(?:hours?|days?|weeks?))\s+"
            r"(?:before|ahead\s+of|prior\s+to)\s+(?:the|each|every|their|his|her|its|a|an)\s+"
            r"(?:appointments?|bookings?|reservations?|sessions?|classes|class|shifts?|events?|visits?|meetings?"
            r"|deadlines?|due\s+dates?|check-?ins?|arrivals?|departures?|flights?|games?|matches|match|lessons?|jobs?)",
            r"cron(?:tab)?",
            # "at the end of each shift".
            r"(?:at\s+the\s+)?end\s+of\s+(?:each|every)\s+(?:shift|day|week|month|quarter|working\s+day)",
            # "Saturday morning would be perfect": the user naming when it runs.
            rf"{WEEKDAY}s?(?:\s+{DAYPART})?\s+(?:would\s+be|is|works|suits)\s+(?:perfect|best|good|great|fine|ideal|ok|okay)",
            # "the first business day of the month", "the 2nd of every month".
            rf"(?:{ORDINAL})\s+(?:business\s+|working\s+|week)?day\s+of\s+(?:the|each|every|a)\s+month",
            r"\d{1,2}(?:st|nd|rd|th)\s+of\s+(?:each|every|the)\s+month",
            # "at month end", "by the end of each week".
            r"(?:at|by|on|every)\s+(?:the\s+)?(?:month|week|quarter|year)[\s-]end",
        )
    )
)
CRON_EXPRESSION = words(rf"(?:{CRON_FIELD}\s+){{4}}{CRON_FIELD}")


def _is_cron(expression: str) -> bool:
    # At least one '*' tells "0 9 * * 1" from a plain list of five numbers.
    return "*" in expression


# recurrent calls parsedatetime in a style it deprecates; the behaviour is what we rely on.
warnings.filterwarnings("ignore", message="Flag style will be deprecated", module="parsedatetime")
# Sentences for the parser, and where in one its time is said.
TIME_WORD = words(
    rf"{WEEKDAY}s?|weekdays?|weekends?|day|night|morning|evening|week|month|quarter|year|hour|minute|noon|midnight|\d{{1,2}}(?::\d\d)?\s*(?:am|pm)?"
)
# An event trigger, not a clock: "every time a new order comes in", "whenever".
EVENT = words(r"(?:every|each)\s+time|whenever|as\s+soon\s+as")


POSSESSIVE = re.compile(r"['’]s?(?!\w)")
# "zero slack in her day", "my week is packed": someone's time, not when anything runs.
# ("it's eating my Friday afternoons": one more word of the same time may come between)
OWNED_BEFORE = re.compile(
    r"(?<!\w)(?:my|his|her|their|our|your|its)\s+"
    r"(?:(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|whole|entire|weekend)s?\s+)?\Z",
    re.IGNORECASE,
)
# "so far that week", "this month's totals": a determiner says which one, a period not a
# recurrence.
WHICH_BEFORE = re.compile(
    r"(?<!\w)(?:this|that|these|those|next|last|past|previous|coming)\s+\Z", re.I
)
# A time word that names a field of the data: "the publication year", "day, place, hotel".
FIELD_BEFORE = re.compile(
    r"(?:(?<!\w)(?:publication|birth|release|fiscal|financial|tax|academic|school|model|production"
    r"|graduation|leap|travel|delivery|expiry|closing|opening|start|end|due|week-?day|working|business)"
    r"|[:,;])\s*\Z",
    re.IGNORECASE,
)
FIELD_AFTER = re.compile(r"\s*[,;/]")
# "in the last 90 days": a number that counts a span, not a clock time.
DURATION_AFTER = re.compile(
    r"\s+(?:days|weeks|months|hours|minutes|years|business\s+days|working\s+days)(?!\w)",
    re.IGNORECASE,
)
# "due a week before the start date": an offset from a date in the data, not a recurrence.
OFFSET_AFTER = re.compile(
    r"s?\s+(?:before|after|ahead\s+of|prior\s+to|earlier|later|from)(?!\w)", re.IGNORECASE
)


def _names_a_field(text: str, word: re.Match[str]) -> bool:
    before = text[max(0, word.start() - 16) : word.start()]
    named = FIELD_BEFORE.search(before)
    if named is None:
        return False
    # After a colon or comma it is a field only as an item of a list: "day, place, hotel".
    return named[0].strip()[-1:] not in ":,;" or FIELD_AFTER.match(text, word.end()) is not None


@lru_cache(maxsize=4096)
def is_recurrence(sentence: str) -> bool:
    """The parser reads a recurrence rule (not just a date) in the sentence."""
    try:
        rule = RecurringEvent().parse(sentence)
    except Exception:
        return False
    return isinstance(rule, str) and rule.startswith("RRULE:")


def parsed_hits(text: str, taken: list[Hit]) -> list[Hit]:
    """Scheduler hits the parser finds in sentences the patterns found nothing in."""
    found = []
    for sentence in SENTENCE.finditer(text):
        if any(sentence.start() <= hit.start < sentence.end() for hit in taken) or EVENT.search(
            sentence[0]
        ):
            continue
        # "this year's value" names a year, it does not recur in it.
        where = next(
            (
                w
                for w in TIME_WORD.finditer(text, sentence.start(), sentence.end())
                if not POSSESSIVE.match(text, w.end())
                and not OWNED_BEFORE.search(text, max(0, w.start() - 24), w.start())
                and not WHICH_BEFORE.search(text, max(0, w.start() - 12), w.start())
                and not _names_a_field(text, w)
                and not OFFSET_AFTER.match(text, w.end())
                and not DURATION_AFTER.match(text, w.end())
            ),
            None,
        )
        if where and is_recurrence(sentence[0].strip()):
            found.append(Hit(where.start(), where.end(), "scheduler"))
    return found


# "gym log thing. sunday night. total volume for the week": a day said on its own as a
# fragment answers when the workflow runs.
FRAGMENT_DAY = re.compile(rf"(?:\A|[.!?\n]\s*)({WEEKDAY}s?(?:\s+{DAYPART})?)\s*[.:]", re.IGNORECASE)


def schedule_hits(text: str) -> list[Hit]:
    """Scheduler hits for every explicit recurring time in the text."""
    said = [Hit(m.start(), m.end(), "scheduler") for m in SCHEDULE.finditer(text)]
    # "it's eating my Friday afternoons": someone's time, not when anything runs (and no
    # sentence for the parser to look further into either)
    owned = [h for h in said if OWNED_BEFORE.search(text, max(0, h.start - 24), h.start)]
    found = [h for h in said if h not in owned]
    found += [Hit(m.start(1), m.end(1), "scheduler") for m in FRAGMENT_DAY.finditer(text)]
    found += [
        Hit(m.start(), m.end(), "scheduler")
        for m in CRON_EXPRESSION.finditer(text)
        if _is_cron(m[0])
    ]
    return found + parsed_hits(text, found + owned)
