"""Whether the user's words state a value of a given kind: simple presence checks, no I/O.

A channel is "#sales" or "the sales channel"; a recipient an address, a number or a person
("to the customer", "email me"); a named thing (spreadsheet, board, table, ...) a quoted or
Title Case name next to its noun ("the 'Q3 Leads' sheet", "our Workshop board") or a plain
word before it that is not an app or a filler ("the leads sheet"). They are deliberately
modest: a value they miss is asked for once, and the user's answer settles it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from catalog import Catalogue

Check = Callable[[str, frozenset[str]], bool]  # (the user's words, app words) -> stated?

# Words before a noun that do not name one ("the same sheet", "a new board").
_FILLERS_WORDS = (
    "a an the our my your their his her its this that these those same new right correct "
    "whole entire existing shared main usual one other another each every any some which what "
    "separate different specific particular relevant appropriate given in on to into from for "
    "and or with at of by then also please post add send put save log write read it i if when "
    "whenever once after before"
)
FILLERS = frozenset(_FILLERS_WORDS.split())
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
PHONE = re.compile(r"\+?\d[\d ()-]{6,}\d")
PERSON = re.compile(
    r"\b(?:to|email|e-mail|text|sms|message|notify|remind|tell|ping|alert|cc|thank|welcome|invite)\s+"
    r"(?:me|us|them|him|her|myself|everyone|everybody|(?:the|each|every|our|my|their|that|this|all(?: the)?)\s+[a-z]+)\b",
    re.IGNORECASE,
)
NAMED_PERSON = re.compile(r"\b(?:to|email|text|cc)\s+([A-Z][a-z]+)\b")
CHANNEL = re.compile(r"(?<![\w&])#[a-z0-9][\w.-]*", re.IGNORECASE)
TIME = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*h\b|\b[01]\d00\b"
    r"|\bat \d{1,2}\b(?!\s*(?:%|percent|days?|weeks?|people|items|of)\b)"
    r"|\b(?:noon|midday|midnight|hourly|every hour|o'?clock|every (?:minute|half hour|quarter hour)"
    r"|every \d+\s*(?:min\w*|hours?|hrs?))\b",
    re.IGNORECASE,
)
LANGUAGES = re.compile(
    r"\b(?:english|spanish|french|german|italian|portuguese|dutch|japanese|chinese|mandarin|korean"
    r"|arabic|russian|hindi|polish|swedish|turkish|greek|danish|norwegian|finnish|czech|hebrew"
    r"|vietnamese|thai|indonesian|malay|ukrainian|romanian|hungarian|welsh|irish|catalan|tagalog)\b",
    re.IGNORECASE,
)
URL = re.compile(
    r"https?://\S+|\bwww\.\S+|\b[\w-]+\.(?:com|org|net|io|co|dev|app|uk|de|fr|nl|eu)(?:/\S*)?\b",
    re.IGNORECASE,
)
SLASHED = re.compile(r"\b[a-z][\w.-]*/[a-z][\w.-]*\b", re.IGNORECASE)
QUOTE = r"[\"'‘“][^\"'’”\n]{1,60}[\"'’”]"


def app_words(catalogue: Catalogue) -> frozenset[str]:
    """Every word of every app's name and aliases: "Google Sheets" names no spreadsheet."""
    words: set[str] = set()
    for entry in (*catalogue.integrations, *catalogue.tools):
        for alias in (*entry.aliases, entry.name.lower()):
            words |= set(alias.split())
    return frozenset(words)


def a_name(words: str, apps: frozenset[str]) -> bool:
    """Some word of `words` is neither a filler nor a word of an app's name."""
    return any(w.lower().strip("'") not in FILLERS | apps for w in words.split())


def named(*nouns: str) -> Check:
    """A check for a named thing: a name next to one of these nouns (plural too)."""
    noun = r"(?i:" + "|".join(nouns) + r")(?:e?s)?\b"
    before_titled = re.compile(r"((?:\b(?:[A-Z][\w&'-]*|\d{2,4})\s+){1,4})" + noun)
    before_plain = re.compile(r"\b([a-z0-9][\w/-]*)\s+" + noun)
    after = re.compile(
        noun
        + r"\s*(?:(?i:(?:is |was )?(?:called|named|titled))\s+\S+|:?\s*"
        + QUOTE
        + r"|\s((?:[A-Z][\w&'-]*\s*){1,3})|\s+[a-z0-9]+[-_.(/][\w.-]+)"
    )
    quoted_before = re.compile(QUOTE + r"\s+" + noun)

    def check(text: str, apps: frozenset[str]) -> bool:
        if quoted_before.search(text):
            return True
        for pattern in (before_titled, before_plain):
            if any(a_name(m.group(1), apps) for m in pattern.finditer(text)):
                return True
        return any(m.group(1) is None or a_name(m.group(1), apps) for m in after.finditer(text))

    return check


def matches(*patterns: re.Pattern[str]) -> Check:
    """A check that any of these patterns occurs."""
    return lambda text, _apps: any(p.search(text) for p in patterns)


def recipient(text: str, apps: frozenset[str]) -> bool:
    """An address, a number, or a person the message is for."""
    if EMAIL.search(text) or PHONE.search(text) or PERSON.search(text):
        return True
    return any(m.group(1).lower() not in apps for m in NAMED_PERSON.finditer(text))


def channel(text: str, apps: frozenset[str]) -> bool:
    """A "#name", or a named channel."""
    return bool(CHANNEL.search(text)) or named("channel")(text, apps)


CHECKS: dict[str, Check] = {
    "channel": channel,
    "to": recipient,
    "chat_id": lambda t, a: bool(re.search(r"@\w+|-?\d{6,}", t)) or named("group", "chat")(t, a),
    "spreadsheet": named("sheet", "spreadsheet", "tab", "workbook"),
    "database": named("database", "db"),
    "board": named("board"),
    "list": named("list", "column"),
    "project": named("project"),
    "table": named("table"),
    "base": named("base"),
    "bucket": lambda t, a: "s3://" in t.lower() or named("bucket")(t, a),
    "folder": named("folder", "directory"),
    "repository": lambda t, a: bool(SLASHED.search(t)) or named("repo", "repository")(t, a),
    "label": named("label", "tag"),
    "cron": matches(TIME),
    "target_language": matches(LANGUAGES),
    "feed_url": matches(URL),
    "url": matches(URL),
}


def stated(field: str, text: str, catalogue: Catalogue) -> bool:
    """The words state a value for this required field (fields without a check count as
    stated: a template or a field of the data is worked out, not asked for)."""
    check = CHECKS.get(field)
    return check is None or check(text, app_words(catalogue))
