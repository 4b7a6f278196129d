"""Values a heuristic config can take from the user's own words. Pure functions, no I/O.

Deliberately modest: a channel name, a schedule phrase, a URL, a phone number, field
names, a time zone. Anything it cannot find is left to the schema's defaults.
"""

from __future__ import annotations

import re
from typing import Any

CHANNEL_HASH = re.compile(r"(?<![\w&])#([a-z0-9][a-z0-9._-]{0,79})", re.IGNORECASE)
CHANNEL_NAMED = re.compile(r"\b(?:the\s+)?([a-z0-9][a-z0-9._-]{1,79})\s+channel\b", re.IGNORECASE)
URL = re.compile(r"https?://[^\s<>\"')]+", re.IGNORECASE)
PHONE = re.compile(r"\+[1-9][0-9]{6,14}\b")
TIMEZONE = re.compile(
    r"\b((?:Africa|America|Asia|Atlantic|Australia|Europe|Pacific)/[A-Za-z_]+(?:/[A-Za-z_]+)?|UTC)\b"
)
CRON_LITERAL = re.compile(r"(?<!\S)((?:[\d*/,-]+\s+){4}[\d*/,A-Za-z-]+)(?!\S)")
TIME = re.compile(
    r"\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b|\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b",
    re.IGNORECASE,
)
DAYS = {
    "sunday": 0,
    "monday": 1,
    "tuesday": 2,
    "wednesday": 3,
    "thursday": 4,
    "friday": 5,
    "saturday": 6,
}
PARTS_OF_DAY = {
    "morning": 9,
    "noon": 12,
    "midday": 12,
    "afternoon": 14,
    "evening": 18,
    "night": 21,
    "midnight": 0,
}
NOT_CHANNELS = {
    "a",
    "the",
    "this",
    "that",
    "each",
    "every",
    "same",
    "one",
    "our",
    "my",
    "slack",
    "teams",
    "discord",
}
KNOWN_FIELDS = (
    "vendor",
    "supplier",
    "customer",
    "total",
    "amount",
    "subtotal",
    "tax",
    "currency",
    "date",
    "due date",
    "invoice number",
    "order number",
    "email",
    "name",
    "subject",
    "title",
    "status",
    "priority",
    "description",
    "url",
)


# Currency words and symbols to ISO 4217 codes; the first one the text names wins.
CURRENCIES = (
    (r"€|\beuros?\b|\beur\b", "EUR"),
    (r"\bcanadian dollars?\b|\bcad\b", "CAD"),
    (r"\baustralian dollars?\b|\baud\b", "AUD"),
    (r"\$|\b(?:us )?dollars?\b|\busd\b", "USD"),
    (r"£|\bpounds? sterling\b|\bgbp\b|\bbritish pounds?\b", "GBP"),
    (r"\bswiss francs?\b|\bchf\b", "CHF"),
    (r"¥|\byen\b|\bjpy\b", "JPY"),
)


def currency(text: str) -> str | None:
    """'all amounts in euros' -> 'EUR': the currency the text names first, if any."""
    found = [
        (m.start(), code)
        for pattern, code in CURRENCIES
        if (m := re.search(pattern, text, re.IGNORECASE))
    ]
    return min(found)[1] if found else None


def channel(text: str) -> str | None:
    """'#finance', or 'the announcements channel' -> '#announcements'."""
    if found := CHANNEL_HASH.search(text):
        return "#" + found.group(1).lower().rstrip("._-")
    for found in CHANNEL_NAMED.finditer(text):
        if found.group(1).lower() not in NOT_CHANNELS:
            return "#" + found.group(1).lower().rstrip("._-")
    return None


def cron(text: str) -> str | None:
    """A five-field cron from a literal or from 'every Monday at 9am'-style phrases."""
    if found := CRON_LITERAL.search(text):
        return " ".join(found.group(1).split())
    lowered = text.lower()
    if every := re.search(r"\bevery\s+(\d{1,2})\s+minutes?\b", lowered):
        return f"*/{every.group(1)} * * * *"
    hour, minute = time_of_day(lowered)
    if re.search(r"\b(hourly|every hour)\b", lowered):
        return f"{minute} * * * *"
    days = day_field(lowered)
    return f"{minute} {hour} {days}" if days else None


def day_field(lowered: str) -> str | None:
    """Day-of-month, month and day-of-week fields for the days the text names, if any."""
    if days := sorted({DAYS[d] for d in re.findall(r"\b(" + "|".join(DAYS) + r")s?\b", lowered)}):
        return f"* * {','.join(map(str, days))}"
    phrases = (
        (r"\b(weekdays?|every weekday|business days?)\b", "* * 1-5"),
        (r"\b(weekly|every week)\b", "* * 1"),
        (r"\b(monthly|every month)\b", "1 * *"),
        (r"\b(daily|every (day|morning|evening|night)|each (day|morning))\b", "* * *"),
    )
    found = next((fields for pattern, fields in phrases if re.search(pattern, lowered)), None)
    return found or ("* * *" if TIME.search(lowered) else None)


def time_of_day(lowered: str) -> tuple[int, int]:
    """(hour, minute) from 'at 9am', '17:30', 'in the morning'; 9:00 when unsaid."""
    if found := TIME.search(lowered):
        hour_text, minute_text, meridiem = (
            found.group(1) or found.group(4),
            found.group(2) or found.group(5),
            found.group(3) or found.group(6),
        )
        hour = int(hour_text) % 12 + (12 if meridiem == "pm" else 0) if meridiem else int(hour_text)
        if 0 <= hour <= 23:
            return hour, int(minute_text or 0) % 60
    for word, hour in PARTS_OF_DAY.items():
        if re.search(rf"\b{word}\b", lowered):
            return hour, 0
    return 9, 0


def url(text: str) -> str | None:
    """The first http(s) URL the user wrote."""
    found = URL.search(text)
    return found.group(0).rstrip(".,;") if found else None


def phone(text: str) -> str | None:
    """The first E.164 phone number the user wrote."""
    found = PHONE.search(text.replace(" ", ""))
    return found.group(0) if found else None


def timezone(text: str) -> str | None:
    """An IANA zone the user named ('Europe/Berlin'), or UTC if they said so."""
    found = TIMEZONE.search(text)
    return found.group(1) if found else None


def fields(text: str) -> list[str]:
    """Known field names the user mentioned ('vendor and total' -> ['vendor', 'total'])."""
    lowered = text.lower()
    named = [f for f in KNOWN_FIELDS if re.search(rf"\b{f}s?\b", lowered)]
    # "due date" also contains "date": keep only the longer name.
    return [f.replace(" ", "_") for f in named if not any(f != g and f in g.split() for g in named)]


def enum_choice(options: list[Any], text: str) -> object | None:
    """The enum option the user's words name, if exactly one does."""
    lowered = text.lower()
    named = [
        o
        for o in options
        if isinstance(o, str)
        and re.search(rf"\b{re.escape(o.lower().replace('_', ' '))}\b", lowered.replace("_", " "))
    ]
    return named[0] if len(named) == 1 else None
