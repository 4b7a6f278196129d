"""A five-field cron (Sunday = 0) from the sentence where the user said when it runs. Pure.

Only sentences that state a schedule count (catalog.schedule finds them), so "matches are
usually Friday-Sunday" elsewhere does not move a run said "every day at 10am". Of those,
the one saying most (days and a time) wins; a time said in another schedule sentence
completes one that gives only the days.
"""

from __future__ import annotations

import re

from catalog.schedule import EVENT, schedule_hits
from catalog.structure import routine_of_others
from catalog.values.clock import spoken
from catalog.values.owners import sentence_span

CRON_LITERAL = re.compile(r"(?<!\S)((?:[\d*/,-]+\s+){4}[\d*/,A-Za-z-]+)(?!\S)")
DAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
DAY = r"(sun|mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?)(?:day)?s?"
DAY_RANGE = re.compile(rf"\b{DAY}\s*(?:to|through|thru|until|-|–)\s*{DAY}\b")
DAY_NAME = re.compile(r"\b(sun|mon|tues|wednes|thurs|fri|satur)days?\b")
# "every mon 9am", "on fri": a day's short name, only after a word that makes it a day
# ("the sun", "they sat", "newly wed" stay words).
DAY_SHORT = re.compile(
    r"\b(?:every|each|on|next|this)\s+(sun|mon|tues?|wed|thu|thurs|fri|sat)\b\.?(?!\w)"
)
CLOCK = re.compile(
    r"(?<![\d:.€$£])(?:(\d{1,2})[:h](\d{2})|(\d{1,2}))\s*(am|pm|a\.m\.|p\.m\.)?(?![\d%])"
    r"(?=[,;:!?)]|\.(?!\d)|\s|$)"
)
AT = re.compile(r"(?:\bat|\baround|\babout|\bby|@)\s+\Z")
MILITARY = re.compile(r"(?<!\d)([01]\d|2[0-3])([0-5]\d)(?!\d)")
# A part of the day said right beside a time: "every night at 9", "Friday afternoons, around 3".
LATER = re.compile(r"\b(?:afternoon|evening|night|tonight)s?\b")
EARLY = re.compile(r"\b(?:mornings?|am)\b")
NEAR = 25
# "runs 8am to 1pm": a span of opening hours, not a time to run at.
RANGE_AFTER = re.compile(r"\s*(?:to|till|until|-|–)\s*\d")
RANGE_BEFORE = re.compile(r"(?:\d\s*(?:am|pm)?\s*(?:to|till|until|-|–)|\bfrom)\s*\Z")
PERIODS = (
    (r"\bevery\s+(\d{1,2})\s+min(?:ute)?s?\b", "*/{0} *"),
    (r"\bevery\s+(?:half\s+(?:an\s+)?hour|30\s+min(?:ute)?s?)\b", "*/30 *"),
    (r"\bevery\s+(\d{1,2})\s+hours?\b", "0 */{0}"),
    (r"\bevery\s+other\s+hour\b", "0 */2"),
    # "hourly" but not "an hourly rate": a price per hour is no schedule.
    (
        r"\b(?:hourly(?!\s+(?:rates?|wages?|pay|prices?|costs?|fees?))|every\s+hour|each\s+hour)\b",
        "0 *",
    ),
)
WEEKDAYS = r"\b(?:weekdays?|every\s+weekday|business\s+days?|working\s+days?|work\s*days?|school\s+days?)\b"
DAILY = r"\b(?:daily|nightly|every\s+(?:day|morning|evening|night)|each\s+(?:day|morning|evening|night)|twice\s+a\s+day)\b"
MONTH_DAY = re.compile(
    r"\b(?:(\d{1,2})(?:st|nd|rd|th)|(first))\s+(?:day\s+)?of\s+(?:the|each|every|a)\s+month\b"
)
PART_OF_DAY = {"morning": 9, "noon": 12, "midday": 12, "afternoon": 14, "evening": 18,
               "night": 21, "midnight": 0}  # fmt: skip


def cron(text: str) -> str | None:
    """The cron of the schedule the text states, or None when it states none."""
    if found := CRON_LITERAL.search(text):
        return " ".join(found.group(1).split())
    spans = sorted({sentence_span(text, h.start) for h in schedule_hits(text)})
    timed = [(a, b) for a, b in spans if not EVENT.search(text[a:b])]
    stated = [(r, text[a:b]) for a, b in timed if (r := _read(text[a:b].lower()))[0] or r[1]]
    # (parsed only when there is a choice to make)
    said = [(r, len(stated) > 1 and routine_of_others(sentence)) for r, sentence in stated]
    if not said:
        return None
    # The fullest schedule said; of equals, one asked for over someone's routine told as
    # background ("she starts every day with a 6:30 class ... every evening at 9pm, text her").
    (days, times), _ = max(said, key=lambda s: (bool(s[0][0]) + bool(s[0][1]), not s[1]))
    read = [r for r, _ in said]
    if days and days.count(" ") == 4:
        return days  # "every 15 minutes": the period is the whole cron
    times = _moved(text[spans[0][0] :].lower()) or times
    minute, hours = _time_fields(times or next((t for _, t in read if t), []), text.lower())
    return f"{minute} {hours} {days or '* * *'}"


# "make it 9:15", "change it to 7am", "move that to 18:00": the time the run moves to.
MOVED = re.compile(
    r"\b(?:make|change|move|push|bump|switch|shift|set)\s+(?:it|that|this|the\s+time)\s+(?:to\s+)?"
)


def _moved(after: str) -> list[tuple[int, int]]:
    """The time a later message moves the schedule to, if one does."""
    after = spoken(after)
    moves = [m for m in MOVED.finditer(after) if _times(after[m.end() : m.end() + 12])]
    return _times(after[moves[-1].end() : moves[-1].end() + 12])[:1] if moves else []


def _read(sentence: str) -> tuple[str | None, list[tuple[int, int]]]:
    """(day fields, or a period's whole cron; clock times) that a schedule sentence states."""
    sentence = spoken(sentence)
    for pattern, fields in PERIODS:
        if found := re.search(pattern, sentence):
            return fields.format(*found.groups()) + " * * *", []
    return _days(sentence), _times(sentence)


def _days(sentence: str) -> str | None:
    if found := MONTH_DAY.search(sentence):
        return f"{found[1] or 1} * *"
    if found := DAY_RANGE.search(sentence):
        first, last = _day(found[1]), _day(found[2])
        return f"* * {first}-{last}" if first < last else f"* * {_spread(first, last)}"
    if re.search(WEEKDAYS, sentence):
        return "* * 1-5"
    names = [m[1] for m in DAY_NAME.finditer(sentence)] + [
        m[1] for m in DAY_SHORT.finditer(sentence)
    ]
    if named := sorted({_day(name) for name in names}):
        return "* * " + ",".join(map(str, named))
    if re.search(r"\b(?:weekends?)\b", sentence):
        return "* * 0,6"
    if re.search(r"\b(?:monthly|every\s+month|each\s+month)\b", sentence):
        return "1 * *"
    if re.search(r"\b(?:weekly|every\s+week|each\s+week|once\s+a\s+week)\b", sentence):
        return "* * 1"
    return "* * *" if re.search(DAILY, sentence) else None


def _day(word: str) -> int:
    return next(i for i, d in enumerate(DAYS) if d.startswith(word[:3]))


def _spread(first: int, last: int) -> str:
    # "Friday to Sunday" wraps past Saturday: 5,6,0 written in order.
    return ",".join(map(str, sorted({d % 7 for d in range(first, last + 8)})))


def _times(sentence: str) -> list[tuple[int, int]]:
    """Clock times said in the sentence: "at 9", "5pm", "07:30", "0600 and 1800"."""
    found = []
    for m in CLOCK.finditer(sentence):
        hour, minute, meridiem = int(m[1] or m[3]), int(m[2] or 0), (m[4] or "")[:1]
        if not (m[1] or meridiem or AT.search(sentence[: m.start()])):
            continue  # a bare number ("40 of us") is a time only after "at"
        if RANGE_AFTER.match(sentence, m.end()) or RANGE_BEFORE.search(sentence[: m.start()]):
            continue
        if meridiem:
            hour = hour % 12 + (12 if meridiem == "p" else 0)
        elif hour < 12 and not (m[1] or "").startswith("0") and _later(_around(sentence, m)):
            hour += 12  # "at 9 every night", "6:30 in the evening"; "06:30" is a 24-hour clock
        if hour <= 23 and minute <= 59:
            found.append((hour, minute))
    military = list(MILITARY.finditer(sentence))
    if any(m[1].startswith("0") for m in military):  # "0600 and 1800": 24-hour clock
        found += [(int(m[1]), int(m[2])) for m in military]
    for word, hour in PART_OF_DAY.items():
        if not found and re.search(rf"\b{word}\b", sentence) and word in ("noon", "midnight"):
            found.append((hour, 0))
    return found


def _around(sentence: str, m: re.Match[str]) -> str:
    return sentence[max(0, m.start() - NEAR) : m.end() + NEAR]


def _later(around: str) -> bool:
    """ "every night at 9", "at 5 in the afternoon": an evening word beside the time."""
    return LATER.search(around) is not None and EARLY.search(around) is None


def _time_fields(times: list[tuple[int, int]], lowered: str) -> tuple[str, str]:
    if not times:
        hour = next((h for w, h in PART_OF_DAY.items() if re.search(rf"\b{w}\b", lowered)), 9)
        return "0", str(hour)
    minutes = {m for _, m in times}
    if len(minutes) == 1:
        return str(minutes.pop()), ",".join(str(h) for h in sorted({h for h, _ in times}))
    return str(times[0][1]), str(times[0][0])


# A cron in words, for people checking a schedule ("every weekday at 08:00").
DAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
NUMBER = re.compile(r"\d{1,2}")


def in_words(expression: str) -> str:
    """ "0 18 * * *" -> "every day at 18:00", "*/30 * * * *" -> "every 30 minutes"; a cron
    these forms do not cover is shown as it is ("on the cron 5 4 1-7 * 1")."""
    fields = expression.split()
    if len(fields) != 5:
        return f"on the cron {expression}"
    minute, hour, month_day, month, week_day = fields
    when = _when(minute, hour)
    days = _on_days(month_day, month, week_day)
    if when is None or days is None:
        return f"on the cron {expression}"
    if when.startswith("every"):  # "every 30 minutes", "every hour on weekdays"
        if days == "every day":
            return when
        plural = days.replace("every weekday ", "weekdays ").replace(
            "every weekend day", "weekends"
        )
        return f"{when} {plural if plural.startswith('on ') else 'on ' + plural.removeprefix('every ')}"
    return f"{days} {when}"


def _when(minute: str, hour: str) -> str | None:
    if (m := re.fullmatch(r"\*/(\d{1,2})", minute)) and hour == "*":
        return f"every {m.group(1)} minutes"
    if not NUMBER.fullmatch(minute):
        return None
    if hour == "*":
        return "every hour" + (f" at {int(minute)} past" if int(minute) else "")
    if m := re.fullmatch(r"\*/(\d{1,2})", hour):
        return f"every {m.group(1)} hours" + (f" at {int(minute)} past" if int(minute) else "")
    hours = hour.split(",")
    if not all(NUMBER.fullmatch(h) and int(h) < 24 for h in hours):
        return None
    times = [f"{int(h):02d}:{int(minute):02d}" for h in hours]
    return "at " + (
        " and ".join([", ".join(times[:-1]), times[-1]]) if len(times) > 1 else times[0]
    )


def _on_days(month_day: str, month: str, week_day: str) -> str | None:
    if month != "*":
        return None
    if month_day != "*":
        if not NUMBER.fullmatch(month_day) or week_day != "*":
            return None
        return f"on day {int(month_day)} of every month"
    if week_day in ("*", "0-6", "1-7"):
        return "every day"
    if week_day == "1-5":
        return "every weekday (Monday to Friday)"
    if week_day in ("0,6", "6,0"):
        return "every weekend day"
    if m := re.fullmatch(r"([0-7])-([0-7])", week_day):
        first, last = (DAY_NAMES[int(d) % 7] for d in m.groups())
        return f"every {first} to {last}"
    days = week_day.split(",")
    if not all(re.fullmatch(r"[0-7]", d) for d in days):
        return None
    said = [DAY_NAMES[int(d) % 7] for d in days]
    return "every " + (" and ".join([", ".join(said[:-1]), said[-1]]) if len(said) > 1 else said[0])
