"""Values the user stated, each with where it was said and what it can fill. Pure functions.

Every finder returns positioned candidates; `stated_value` gives a node the candidate of
its own app's sentences first (owners.owner), then one said where no app was named, never
one the user tied to another app. Kinds: container names (names.py), #channels, e-mail
addresses (partial ones too, for a mailbox search), phone numbers as written, endpoints,
S3 locations, languages, web search terms, and the arithmetic of a calculation.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache
from typing import Any, NamedTuple

from catalog.values import languages, owners
from catalog.values.names import names
from catalog.values.recipients import recipients


class Candidate(NamedTuple):
    """A value at text[start:end] for the properties `targets` (closest first); lower
    `rank` is a more direct way of saying it ("into French" before "in French")."""

    start: int
    end: int
    targets: tuple[str, ...]
    value: str
    rank: int = 0
    at: int = -1  # where the value itself starts, when the phrase holds more (a noun)


CHANNEL_NAMED = re.compile(r"\b(?:the\s+)?([a-z0-9][a-z0-9._-]{1,79})\s+channel\b", re.I)
NOT_CHANNELS = {"a", "the", "this", "that", "each", "every", "same", "one", "our", "my", "your",
                "their", "slack", "teams", "discord", "team", "private", "public", "new"}  # fmt: skip
# "@lateshiftpod": a chat's handle (an address's "@" has a name before it).
HANDLE = re.compile(r"(?<![\w.@+-])@([a-z][a-z0-9_]{3,31})\b", re.IGNORECASE)
HASH_CHANNEL = re.compile(r"(?<![\w&/])#([a-z0-9][a-z0-9._-]{0,79})", re.IGNORECASE)
EMAIL = re.compile(r"(?<![\w.+-])([a-z0-9._%+-]+@(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*)?)", re.IGNORECASE)
PHONE = re.compile(r"(?<![\w+])\+[1-9][0-9 ()-]{6,18}[0-9]")
# A number written the national way ("602-555-0143", "(415) 555 0182", "07700 900123",
# "07911123456", "020 7946 0958", "06-12345678"): kept as written, since only the user knows
# the country code it lacks. A trunk prefix 0 and ten or eleven digits in all, in groups.
NATIONAL_PHONE = re.compile(
    r"(?<![\w+.-])(?:\(\d{3}\)\s?|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\w-])"
    r"|(?<![\w+.,/-])0(?=(?:[ -]?\d){9,10}(?![\w/]|[.,-]\w|[ -]\d))\d{1,4}(?:[ -]?\d{2,4}){1,4}"
)
ENDPOINT = re.compile(
    r"\b(?:GET|POST|PUT|PATCH|DELETE|endpoint|route|path)\s+(?:to\s+)?(/[\w{}.-]+(?:/[\w{}.-]*)*)",
    re.IGNORECASE,
)
S3_URL = re.compile(r"\bs3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(/\S*)?", re.IGNORECASE)
UNDER_PREFIX = re.compile(r"\bunder\s+([\w{}.-]+/[\w{}./-]*)")
# "google" is the verb only where no article, owner or preposition makes it a noun and no
# product of Google's follows ("my google calendar", "it's all in google now" are not searches).
GOOGLE_VERB = (
    r"(?<!\bmy\s)(?<!\bour\s)(?<!\bthe\s)(?<!\bin\s)(?<!\bon\s)(?<!\bfrom\s)(?<!\binto\s)"
    r"google(?!\s+(?:calendar|sheets?|drive|docs?|mail|maps|chat|forms?|meet|workspace|now)\b)"
)
SEARCH = re.compile(
    rf"\b(?:search(?:\s+(?:the\s+web|online|google))?\s+for|look\s+up|{GOOGLE_VERB})\s+"
    r"(.{3,80}?)(?=[.,;!?\n]|\s+(?:and|then|every|each|so)\b|$)",
    re.IGNORECASE,
)
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
FACTOR = re.compile(r"(?:(\d+(?:\.\d+)?)\s*[x×](?!\w)|(?:times|[x×])\s+(\d+(?:\.\d+)?)\b)")
# "using a rate of 0.85", "use 1.08 as the rate": an exchange or conversion rate multiplies.
RATE = re.compile(
    r"\brate\s+(?:of\s+)?(\d+(?:\.\d+)?)\b|\b(\d+(?:\.\d+)?)\s+as\s+(?:the\s+)?(?:exchange\s+|conversion\s+)?rate\b",
    re.IGNORECASE,
)
BASES = ("total", "amount", "price")
MINUS = re.compile(r"\b(?:discount|off|minus|less|deduct\w*|reduc\w*)\b", re.IGNORECASE)
PLUS = re.compile(r"\b(?:vat|tax|margin|mark-?up|on\s+top|plus|add\w*|surcharge|fee)\b", re.I)
# A value right after a negation or a replacement is the one the user does not want.
TURNED_DOWN = re.compile(
    r"(?<!\w)(?:not|no|never|instead\s+of|rather\s+than)\s+(?:(?:the|in|to|into|on|at|our|my)\s+)?\Z",
    re.IGNORECASE,
)
# A recipient placeholder from recipients.py, before it is shaped for its field.
PERSON = re.compile(r"\{([a-z]*)\}")
EMAIL_TARGETS = ("to", "email", "cc", "query", "filter")
PARTIAL_EMAIL_TARGETS = ("query", "filter")


@lru_cache(maxsize=32)
def candidates(text: str) -> tuple[Candidate, ...]:
    """Every value the text states, from every finder, in order of position."""
    found = [
        Candidate(n.start, n.end, n.targets, n.value, 0, n.at)
        for n in names(text)
        # "the Slack channel", "our Google Sheet": an app's own name names no thing in it;
        # but "the folder Job Sheets" does, though each of its words is some alias's word.
        if not _app_name(n.value)
    ]
    found += [
        Candidate(m.start(), m.end(), ("channel",), "#" + m[1].lower().rstrip("._-"))
        for m in HASH_CHANNEL.finditer(text)
    ]
    # "the announcements channel": a lower-case word, less surely a name (rank 1).
    found += [
        Candidate(m.start(), m.end(), ("channel",), "#" + m[1].lower().rstrip("._-"), 1)
        for m in CHANNEL_NAMED.finditer(text)
        if m[1].lower() not in NOT_CHANNELS
    ]
    found += [
        Candidate(m.start(), m.end(), ("chat_id",), "@" + m[1]) for m in HANDLE.finditer(text)
    ]
    addresses = _emails(text) + _phones(text)
    people = []
    for start, end, value in recipients(text):
        # "emailed to his driver, Kofi, at kofi@mensah.com": the person is the address said
        # right after; it is where things are sent, not a mailbox to search.
        named = next((a for a in addresses if _right_after(text, end, a.start)), None)
        if named is None:
            # "text the customer": a person in the data, less direct than a number (rank 1).
            people.append(Candidate(start, end, ("to",), value, 1))
        elif named.targets == EMAIL_TARGETS:
            addresses[addresses.index(named)] = named._replace(targets=SENT_TO)
    found += addresses + people + _locations(text) + _searches(text) + _dictated(text)
    return tuple(sorted(found + languages.candidates(text)))


SENT_TO = ("to", "email", "cc")


def _app_name(value: str) -> bool:
    """The words are an app's alias ("Google Sheet"), or one word of one ("Drive")."""
    words = value.lower().split()
    if len(words) == 1:
        return words[0] in owners.alias_words()
    return " ".join(words) in owners.alias_phrases() or " ".join(words).rstrip("s") in (
        owners.alias_phrases()
    )


def _right_after(text: str, end: int, start: int) -> bool:
    """An address said right after a person, in the same sentence ("to Kofi, at ...")."""
    return 0 <= start - end <= 40 and not re.search(r"[.!?;\n]", text[end:start])


def _emails(text: str) -> list[Candidate]:
    out = []
    for m in EMAIL.finditer(text):
        address = m[1].rstrip(".")
        full = re.search(r"@[\w-]+\.\w", address) is not None
        out.append(
            Candidate(m.start(), m.end(), EMAIL_TARGETS if full else PARTIAL_EMAIL_TARGETS, address)
        )
    return out


def _phones(text: str) -> list[Candidate]:
    found = [
        Candidate(m.start(), m.end(), ("to", "from_number"), re.sub(r"[ ()-]", "", m[0]))
        for m in PHONE.finditer(text)
    ]
    return found + [
        Candidate(m.start(), m.end(), ("to", "from_number"), m[0])
        for m in NATIONAL_PHONE.finditer(text)
    ]


def _locations(text: str) -> list[Candidate]:
    out = [Candidate(m.start(1), m.end(1), ("url",), m[1]) for m in ENDPOINT.finditer(text)]
    out += [
        Candidate(m.start(1), m.end(1), ("bucket",), m[1].lower()) for m in S3_URL.finditer(text)
    ]
    out += [
        Candidate(m.start(2), m.end(2), ("prefix",), m[2].lstrip("/"))
        for m in S3_URL.finditer(text)
        if m[2] and len(m[2]) > 1
    ]
    return out + [
        Candidate(m.start(1), m.end(1), ("prefix", "folder"), m[1])
        for m in UNDER_PREFIX.finditer(text)
    ]


# Words the user dictates for a message: a quoted text said as what it says ("just something
# like 'we've received your request'", "a text saying 'your table is ready'"); not a quoted
# example of the data ("reviews like 'love the bracelet'").
DICTATED = re.compile(
    r"(?:\b(?:(?:say|says|saying|read|reads|reading|something\s+like|lines\s+of|wording)\s*:?"
    r"|(?:message|text|wording)\s*:)\s*)"
    # (an apostrophe inside, "we've", is no closing quote: a word follows it)
    r"[\"“‘']([^\n]{8,300}?)[\"”’'](?!\w)",
    re.IGNORECASE,
)
MESSAGE_TARGETS = ("message_template", "body")
# Config properties that hold wording the workflow writes, not a setting a person checks; a
# message's text is shown where the user dictated it (DICTATED_FIELDS), never a template of ours.
WORDING_FIELDS = frozenset({"text", "title_template", "description_template"})
DICTATED_FIELDS = frozenset(MESSAGE_TARGETS)


def _dictated(text: str) -> list[Candidate]:
    return [
        Candidate(m.start(), m.end(), MESSAGE_TARGETS, m[1].strip(), 0, m.start(1))
        for m in DICTATED.finditer(text)
        if " " in m[1].strip()  # a message, not a one-word label ("marked 'urgent'")
    ]


def _searches(text: str) -> list[Candidate]:
    return [
        Candidate(m.start(1), m.end(1), ("query_template",), m[1].strip())
        for m in SEARCH.finditer(text)
    ]


def _arithmetic(text: str) -> list[Candidate]:
    """One expression per sentence that refers to the calculator and states rates or factors."""
    out: list[Candidate] = []
    for ref in (h for h in owners.references(text) if h.id == "calculator"):
        low, high = owners.sentence_span(text, ref.start)
        if any(c.start == low for c in out):
            continue
        sentence = text[low:high]
        terms = [_percent_term(sentence, m) for m in PERCENT.finditer(sentence)]
        terms += [f"* {m[1] or m[2]}" for m in FACTOR.finditer(sentence)]
        terms += [f"* {m[1] or m[2]}" for m in RATE.finditer(sentence)]
        if terms:
            base = next((w for w in BASES if re.search(rf"\b{w}\b", sentence, re.I)), "value")
            out.append(Candidate(low, high, ("expression",), " ".join([base, *terms])))
    return out


def _percent_term(sentence: str, m: re.Match[str]) -> str:
    # The word nearest a rate says whether it is added (VAT, a margin) or taken off (a discount).
    cues = [
        (abs(c.start() - m.start()), sign)
        for sign, pattern in (("-", MINUS), ("+", PLUS))
        for c in pattern.finditer(sentence)
    ]
    near = min((c for c in cues if c[0] <= 30), default=None)
    return f"* (1 {near[1]} {m[1]}/100)" if near else f"* {m[1]}/100"


def stated_value(
    app_id: str,
    name: str,
    properties: Collection[str],
    text: str,
    apps: Collection[str] | None = None,
) -> list[str]:
    """The values the user stated for property `name` of a node of `app_id` (whose schema
    has `properties`), best first: its own sentences', then unclaimed ones, by rank."""
    found = []
    # The arithmetic needs the calculator's references: read only for its expression.
    every = (*candidates(text), *(_arithmetic(text) if name == "expression" else ()))
    # "sorry, not #reviews, use #cx-alerts": a value the user turned down, wherever said.
    # ("not in English" is a condition on the text, not a language turned down.)
    refused = {
        c.value
        for c in every
        if TURNED_DOWN.search(text, max(0, c.start - 24), c.start)
        and not {"language", "target_language", "source_language"} & set(c.targets)
    }
    for c in every:
        if next((t for t in c.targets if t in properties), None) != name or c.value in refused:
            continue
        who = owners.owner(text, (c.start, c.end), frozenset(c.targets), apps, _own(c))
        if who in (app_id, None):
            found.append((who is None, c.rank, c.start, c.value, text[: c.start]))
    return [shaped(name, value, before) for *_, value, before in sorted(found)]


def _own(c: Candidate) -> tuple[int, int]:
    """Where the value's own words are: an app reference there is the name's, not an app."""
    return (c.at, c.at + len(c.value)) if c.at >= 0 else (c.start, c.end)


def shaped(name: str, value: str, before: str) -> str:
    """A value in the form its property takes: a mailbox search says from: or to:."""
    if name in PARTIAL_EMAIL_TARGETS and "@" in value:
        sender = re.search(r"\b(?:from|by|sender)\W+(?:\w+\W+){0,2}\Z", before, re.I)
        return f"{'from' if sender else 'to'}:{value}"
    return value


def as_property(value: Any, spec: dict[str, Any]) -> Any:
    """One stated value as the property holds it: a list property gets a one-item list, a
    Slack-style lower-case channel its slug ("Shift Handover" -> "#shift-handover"), a person
    in the data the field of theirs the property takes ("{customer}" -> "{customer_phone}")."""
    if spec.get("type") == "array":
        return [value]
    person = PERSON.fullmatch(value) if isinstance(value, str) else None
    if person:
        field = "phone" if "phone" in spec.get("description", "").lower() else "email"
        return "{" + "_".join(filter(None, (person[1], field))) + "}"
    pattern = spec.get("pattern", "")
    if isinstance(value, str) and pattern.startswith("^#?[a-z") and not value.startswith("#"):
        return "#" + re.sub(r"[^a-z0-9._-]+", "-", value.lower()).strip("-")
    return value
