"""Values a heuristic config can take from the user's own words. Pure functions, no I/O.

Whole-text finders: a URL, field names, a time zone, a currency, an enum choice. Values
tied to an app's sentence are stated.py's, schedules crons.py's. Anything none of them
finds is left to the schema's defaults.
"""

from __future__ import annotations

import re
import zoneinfo
from functools import lru_cache
from typing import Any

URL = re.compile(r"https?://[^\s<>\"')]+", re.IGNORECASE)
TIMEZONE = re.compile(
    r"\b((?:Africa|America|Asia|Atlantic|Australia|Europe|Pacific)/[A-Za-z_]+(?:/[A-Za-z_]+)?"
    r"|UTC|GMT|CET|EET|WET|MET)\b"
)
# "Lisbon time", "in Berlin time": a city the zone database names.
CITY_TIME = re.compile(r"\b([A-Z][a-z]+(?:[ _][A-Z][a-z]+)?)\s+time\b")
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


def url(text: str) -> str | None:
    """The first http(s) URL the user wrote."""
    found = URL.search(text)
    return found.group(0).rstrip(".,;") if found else None


def timezone(text: str) -> str | None:
    """An IANA zone the user named ('Europe/Berlin', 'Lisbon time', 'CET'), or UTC."""
    if found := TIMEZONE.search(text):
        return found.group(1)
    cities = _zones_by_city()
    return next(
        (cities[c] for m in CITY_TIME.finditer(text) if (c := m[1].replace(" ", "_")) in cities),
        None,
    )


@lru_cache(maxsize=1)
def _zones_by_city() -> dict[str, str]:
    """'Lisbon' -> 'Europe/Lisbon', for every zone named after its city."""
    zones = sorted(
        z for z in zoneinfo.available_timezones() if "/" in z and not z.startswith("Etc")
    )
    return {z.rsplit("/", 1)[1]: z for z in reversed(zones)}


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
        and (
            # a code in capitals ("POST", "PUT") is named in capitals ("POSTs a payload"),
            # not by the ordinary word ("put an English version in the body")
            re.search(rf"\b{re.escape(o)}s?\b", text)
            if o.isupper() and o.isalpha()
            else re.search(
                rf"\b{re.escape(o.lower().replace('_', ' '))}\b", lowered.replace("_", " ")
            )
        )
    ]
    return named[0] if len(named) == 1 else None
