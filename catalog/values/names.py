"""Names the user gave to things an app holds: "the 'To pack' list", "a table called Guests",
"bucket claims-archive", "the Duty Managers channel". Pure functions, no I/O.

A name is found by structure, not by a phrase list: a container noun (sheet, base, table,
board, list, folder, channel, team, project, bucket, repo, calendar, label, ...) with a name
beside it, quoted, in Title Case, or written as an identifier (etl_runs, acme/orbit, SUP,
/Core/Submissions). The noun says which config property the name fills, closest first, so
"tab" fills `sheet` where a schema has one and `spreadsheet` where it has not.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from catalog.typos import near
from catalog.values.owners import alias_words

# Container noun -> the config properties its name may fill, closest first.
NOUNS: dict[str, tuple[str, ...]] = {
    "spreadsheet": ("spreadsheet", "sheet"),
    "file": ("spreadsheet", "path"),
    "sheet": ("spreadsheet", "sheet"),
    "tab": ("sheet", "spreadsheet"),
    "worksheet": ("sheet", "spreadsheet"),
    "base": ("base",),
    "table": ("table",),
    "board": ("board",),
    "list": ("list",),
    "column": ("list",),
    "folder": ("folder", "path", "prefix"),
    "directory": ("folder", "path", "prefix"),
    "channel": ("channel",),
    "group": ("chat_id",),
    "team": ("team",),
    "project key": ("project_key",),
    "project": ("project", "project_key"),
    "database": ("database", "parent"),
    "db": ("database", "parent"),
    "page": ("parent", "database"),
    "bucket": ("bucket",),
    "repository": ("repository", "project"),
    "repo": ("repository", "project"),
    "calendar": ("calendar",),
    "label": ("label", "labels", "tags"),
    "tag": ("tags", "labels", "label"),
    "inbox": ("inbox",),
    "server": ("server",),
    "store": ("store",),
    "priority": ("priority",),
}
NOUN = (
    r"(?i:(?:google\s+)?(?:"
    + "|".join(sorted((n.replace(" ", r"\s+") for n in NOUNS), key=len, reverse=True))
    + r"))"
)
QUOTED = r"[\"'‘“`]([^\"'’”`\n]{1,60}?)[\"'’”`]"
# An identifier: etl_runs, claims-archive, acme/orbit, public.orders, /Core/Submissions, SUP.
IDENT = r"(/?[A-Za-z0-9]+(?:[_./-][A-Za-z0-9{}]+)+/?|[A-Z][A-Z0-9]{1,9}(?![a-z]))"
TITLE = r"((?:[A-Z][\w-]*|[0-9]+)(?:[ \t]+(?:[A-Z][\w-]*|[0-9]+)){0,3})"
# After "called"/"named" the name may go on in lower case ("called Run QC log").
CALLED_NAME = r"((?:[A-Z0-9][\w-]*)(?:[ \t]+(?!(?:{stop})\b)[\w-]+){{0,4}})"
STOP = (
    "and|or|but|so|then|with|for|to|in|on|at|by|from|of|that|which|where|please|already|"
    "too|also|now|there|here|it|is|are|was|the|a|an|our|my|when|if|as|each|every|instead|"
    "again|anyway|though|later|only|either|both|please"
)
# What may stand between a noun and "called": a few words, but no other container noun
# ("a page in a Notion database called X" names the database).
BETWEEN = rf"(?:(?!\b{NOUN}\b)[\w \t,]){{0,30}}?"
CALLED = r"(?i:(?:is\s+|was\s+)?(?:called|named|titled))"
FORMS = (
    # "channel 'Lecture'", "tab is called 'Starters 2025'", "a folder in my Drive called X".
    re.compile(rf"\b({NOUN})\b(?:{BETWEEN}\b{CALLED})?[ \t]*[:=]?[ \t]*{QUOTED}"),
    # "the 'To pack' list", "our Airtable 'Gigs' table", "'Harvest 2024' Google Sheet".
    re.compile(rf"(?<!\w){QUOTED}[ \t]+(?:[A-Z][\w-]*[ \t]+){{0,2}}({NOUN})\b"),
    # "a base called Jobs", "the table is called Candidates", "called Run QC log".
    re.compile(rf"\b({NOUN})\b{BETWEEN}\b{CALLED}[ \t]+" + CALLED_NAME.format(stop=STOP)),
    # "table etl_runs", "bucket claims-archive", "folder, /Core/Submissions", "project key DATA".
    re.compile(rf"\b({NOUN})\b[,:]?[ \t]+{IDENT}(?![\w/])"),
    # "label it High", "tag them 'vip'".
    re.compile(
        rf"\b((?i:label|tag))(?i:s|l?ed|ged)?[ \t]+(?:it|them|each[ \t]+one)[ \t]+(?:as[ \t]+)?(?:{QUOTED}|{TITLE})"
    ),
    # "auto-labeled 'sponsors'", "tagged as 'vip'": the quoted word is the label.
    re.compile(rf"\b((?i:label|tag))(?i:l?ed|ged)[ \t]+(?:(?i:as|with)[ \t]+)?{QUOTED}"),
    # "a google sheet, 'Listener Texts'", "our sheet, Churn Log.": the name said beside it.
    re.compile(rf"\b({NOUN}),[ \t]+(?:{QUOTED}|{TITLE}(?=[ \t]*(?:[.;!?]|$)))", re.M),
)
# "table Guests", "channel Shift Handover", "base is Pitch Tracker": the noun lower case, the
# name in Title Case.
NOUN_THEN_TITLE = re.compile(rf"\b({NOUN})[ \t]+(?:(?:is|=|:)[ \t]+)?{TITLE}\b")
# "the Duty Managers channel", "our Referrals base", "the case_notes table".
TITLE_THEN_NOUN = re.compile(
    r"\b(?i:the|our|my|your|their|its|a|an|this|that|in|to|into|on)[ \t]+"
    rf"(?:{TITLE}|([a-z0-9]+(?:[_.-][a-z0-9]+)+))[ \t]+({NOUN})\b"
)
# "the users table", "our Airtable housekeeping base", "the budget spreadsheet": a thing is
# named by one lower-case word between a determiner (and maybe its app's name) and its noun;
# "table shipments" after a table's noun too. A word that describes rather than names (a
# modifier, an app's own word) is no name: `_one_word`.
WORD_THEN_NOUN = re.compile(
    r"(?:\b(?i:the|our|my|a|its|their|your)|,)[ \t]+(?:[A-Z][\w-]*[ \t]+)?"
    rf"([a-z][a-z0-9_]*)[ \t]+({NOUN})\b"
)
TABLE_WORD = re.compile(
    r"\b(table)[ \t]+([a-z][a-z0-9_]*)(?=[ \t]*(?:[,;:!?)]|\.(?!\w)|$|\n|[ \t]+with\b))"
)
# Words that say which kind, whose or when, not which one ("a shared sheet", "the new board").
_MODIFIER_WORDS = (
    "whole pivot same new main shared private public right correct usual existing separate "
    "different specific relevant master big small old current own other first second last next "
    "single daily weekly monthly yearly annual team company personal general central one "
    "google online internal external proper"
)
MODIFIERS = frozenset(_MODIFIER_WORDS.split())
# "into /fieldwork/scans": a path says it is a folder without a noun.
PATH = re.compile(r"(?<![\w/:.])(/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?)(?![\w/])")
NOT_NAMES = re.compile(
    r"^(?:I|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june"
    r"|july|august|september|october|november|december|new|next|same|main|other)$",
    re.IGNORECASE,
)


class Name(NamedTuple):
    """A name said at text[at:], in the phrase text[start:end] with its noun, for the
    properties `targets` (closest first)."""

    start: int
    end: int
    targets: tuple[str, ...]
    value: str
    at: int


def targets_of(noun: str) -> tuple[str, ...]:
    """The properties a container noun's name may fill ("Google Sheet" is a sheet)."""
    key = re.sub(r"^google ", "", " ".join(noun.lower().split()))
    return NOUNS.get(key, NOUNS.get(key.rstrip("s"), ()))


def names(text: str) -> list[Name]:
    """Every container name in the text, in order of position."""
    found = []
    for form in FORMS:
        for m in form.finditer(text):
            noun, name, at = _parts(m)
            found.append(Name(m.start(), m.end(), targets_of(noun), name.strip(), at))
    for m in NOUN_THEN_TITLE.finditer(text):
        found.append(Name(m.start(), m.end(), targets_of(m[1]), m[2], m.start(2)))
    for m in WORD_THEN_NOUN.finditer(text):
        if _one_word(m[1]):
            found.append(Name(m.start(1), m.end(), targets_of(m[2]), m[1], m.start(1)))
    for m in TABLE_WORD.finditer(text):
        if _one_word(m[2]):
            found.append(Name(m.start(), m.end(), NOUNS["table"], m[2], m.start(2)))
    found += [
        Name(m.start(1), m.end(1), NOUNS["folder"], m[1].rstrip("."), m.start(1))
        for m in PATH.finditer(text)
    ]
    for m in TITLE_THEN_NOUN.finditer(text):
        name, at = (m[1], m.start(1)) if m[1] else (m[2], m.start(2))
        found.append(Name(m.start(1 if m[1] else 2), m.end(), targets_of(m[3]), name, at))
    return sorted({n for n in found if n.targets and _plausible(n.value)})


def _parts(m: re.Match[str]) -> tuple[str, str, int]:
    # Each form has one noun group and one name group, in either order.
    groups = [(m.group(i), m.start(i)) for i in range(1, (m.re.groups or 0) + 1) if m.group(i)]
    (first, first_at), (second, second_at) = groups[0], groups[-1]
    quoted = first_at > 0 and m.string[first_at - 1] in "\"'‘“`"
    if targets_of(first) and not quoted:  # "the 'Inbox' list": a quoted noun is the name
        return first, second, second_at
    return second, first, first_at


def _one_word(word: str) -> bool:
    """A lower-case word that can name a thing: not a stop word, a modifier or an app's word,
    nor a slip for one ("the slack channel", "our trelo board" name none)."""
    if re.fullmatch(STOP, word) or word in MODIFIERS | alias_words():
        return False
    return not any(near(word, name) for name in alias_words())


def _plausible(value: str) -> bool:
    """A name, not a day, a pronoun or an ordinary adjective that happens to be capitalised."""
    words = value.split()
    return bool(words) and not all(NOT_NAMES.match(w) for w in words)
