"""The fields a user listed for a step: "extract unit price, quantity and lead time",
"put taxpayer ID, name and amount due into a Google Sheet". Pure, read by sentence structure.

A list is three or more noun groups joined by commas and a last "and" (or "&", "+"; or
none after a colon), read from
the parse's parts of speech, so the verb before it ("extract", "put") and the article or
owner inside it ("the", "their") are not part of a field, and a field may be a participle
standing alone ("inspected, rejected and ppm"). A list naming apps ("Slack, Teams and
email") is no list of fields. Each list has its place in the text, so owners.owner gives
it to the app of its sentence.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from catalog import load_catalogue
from catalog.values import languages, owners

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

FIELD_LISTS = ("fields", "columns", "properties")
# Sentences worth parsing: a comma (or "+") before a later one or "and".
LISTY = re.compile(r"[,+][^,.;!?\n]*(?:,|\band\b|&|\+)")
NOUNISH = {"NOUN", "PROPN", "ADJ", "NUM"}
JOINS = {",", "and", "&", "+"}
MAX_WORDS = 4  # "date of last visit" is as long as a field gets


class Listed(NamedTuple):
    """Fields the user listed, and where in the text the list is."""

    start: int
    end: int
    fields: tuple[str, ...]


@lru_cache(maxsize=64)
def listed(text: str) -> tuple[Listed, ...]:
    """Every list of fields in the text, in order."""
    from catalog.structure import parse

    found = []
    for sentence in re.finditer(r"[^.!?;\n…]+", text):
        if LISTY.search(sentence.group()):
            doc = parse(sentence.group())
            found += [
                Listed(sentence.start() + a, sentence.start() + b, items)
                for a, b, items in _lists(doc[:])
            ]
    return tuple(found)


def fields_for(
    app_id: str, text: str, apps: Collection[str] | None = None, limit: int = 30
) -> list[str] | None:
    """The fields listed for a node of `app_id`: a list in its own sentence first, else one
    said where no app that keeps fields is named; a tool (a PDF reader, OCR), which people
    rarely name, takes any list ("pull out supplier, date and amount and create a bill in
    QuickBooks"). None when the user listed none."""
    own: list[Listed] = []
    free: list[Listed] = []
    other: list[Listed] = []
    for item in listed(text):
        who = owners.owner(text, (item.start, item.end), frozenset(FIELD_LISTS), apps)
        (own if who == app_id else free if who is None else other).append(item)
    if load_catalogue()[app_id].kind == "tool":
        free += other
    chosen = (own or sorted(free))[:1]
    return [f.replace(" ", "_") for f in chosen[0].fields][:limit] if chosen else None


def said_for(app_id: str, text: str, apps: Collection[str] | None = None) -> str:
    """The sentences where fields said belong to `app_id`: those that refer to it; and for a
    tool, which people rarely name ("pull out the vendor and total"), those that refer to
    no app that keeps fields."""
    keepers = set(owners.takers(frozenset(FIELD_LISTS)))
    keepers &= set(apps) if apps is not None else keepers
    by_sentence: dict[tuple[int, int], set[str]] = {}
    for hit in owners.references(text):
        by_sentence.setdefault(owners.sentence_span(text, hit.start), set()).add(hit.id)
    tool = load_catalogue()[app_id].kind == "tool"
    kept = [
        text[a:b]
        for a, b in _sentence_spans(text)
        if app_id in by_sentence.get((a, b), set())
        or (tool and not by_sentence.get((a, b), set()) & keepers)
    ]
    return "\n".join(kept)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Each sentence's (start, end), as owners.sentence_span marks them, in one pass."""
    ends = [m.start() for m in owners.SENTENCE_END.finditer(text)] + [len(text)]
    starts = [0] + [m.end() for m in owners.SENTENCE_END.finditer(text)]
    return [(a, b) for a, b in zip(starts, ends, strict=True) if text[a:b].strip()]


def _lists(span: Span) -> list[tuple[int, int, tuple[str, ...]]]:
    """(start, end, fields) of each list in a parsed sentence, offsets in the sentence."""
    tokens = list(span)
    groups: list[list[Token]] = [[]]  # the words between joins
    joins: list[str] = []
    for token in tokens:
        if token.lower_ in JOINS:
            if groups[-1]:
                groups.append([])
                joins.append(token.lower_)
            elif joins:
                joins[-1] += " " + token.lower_  # ", and"
            continue
        groups[-1].append(token)
    out: list[tuple[int, int, tuple[str, ...]]] = []
    run = [tail] if (tail := _tail(groups[0])) else []
    for index, (group, joined_by) in enumerate(zip(groups[1:], joins, strict=True)):
        # "a + b + c": each "+" but the last joins like a comma.
        middle = joined_by == "," or joined_by == "+" == (joins[index + 1 :] or [""])[0]
        if run and middle and (whole := _whole(group)):
            run.append(whole)  # another field between commas
            continue
        if run and joined_by != "," and (lead := _lead(group)):
            out += _kept([*run, lead])  # the last field: the list ends here
        run = []
        if tail := _tail(group):
            run = [tail]  # a list may start at the end of this group
    if run and run[0][0].i > 0 and run[0][0].nbor(-1).text == ":":
        out += _kept(run)  # "the columns: date, vendor, amount, status" needs no "and"
    return out


def _kept(run: list[list[Token]]) -> list[tuple[int, int, tuple[str, ...]]]:
    if len(run) < 3:
        return []
    items = tuple(" ".join(t.text for t in group) for group in run)
    if any(item.lower() in owners.alias_phrases() for item in items):
        return []  # "Slack, Teams and email": apps, not fields
    if any(group[0].pos_ == "NUM" or group[0].text[0].isdigit() for group in run):
        return []  # "6pm, 7:30 and 9", "two teams, east and west": times and counts
    if sum(_named(group) or group[0].lower_ in languages.CODES for group in run) * 2 > len(run):
        return []  # "Kenya, Peru and Vietnam", "English, Polish and Arabic": names, not fields
    return [(run[0][0].idx, run[-1][-1].idx + len(run[-1][-1].text), items)]


def _named(group: list[Token]) -> bool:
    """A capitalised name ("Munich", "Midtown"), not an acronym ("VAT") or a field."""
    first = group[0]
    return first.pos_ == "PROPN" and first.text[:1].isupper() and not first.text.isupper()


def _field_token(token: Token, alone: bool) -> bool:
    # A participle is a field only alone between commas ("inspected, rejected").
    return token.pos_ in NOUNISH or (alone and token.tag_ in ("VBN", "VBD"))


def _whole(group: list[Token]) -> list[Token]:
    """The group when all of it is one field (after an article or owner)."""
    body = _after_determiner(group)
    if 0 < len(body) <= MAX_WORDS and all(_field_token(t, len(body) == 1) for t in body):
        return body
    return []


def _tail(group: list[Token]) -> list[Token]:
    """The field a group ends with: "Extract unit price" -> "unit price"."""
    body: list[Token] = []
    for token in reversed(group):
        if not _field_token(token, False) or len(body) == MAX_WORDS:
            break
        body.insert(0, token)
    return body


def _lead(group: list[Token]) -> list[Token]:
    """The field a group starts with: "lead time into the sheet" -> "lead time"."""
    rest = _after_determiner(group)
    if rest and not _field_token(rest[0], True) and _word_alone(rest):
        return rest[:1]  # "rejected and ppm into ...": a field the tagger took for a verb
    if rest and (compound := _verb_compound(rest)):
        return compound
    body: list[Token] = []
    for token in rest:
        if not _field_token(token, not body and len(group) == 1) or len(body) == MAX_WORDS:
            break
        body.append(token)
    return body


def _word_alone(rest: list[Token]) -> bool:
    """One word, then a preposition or nothing: a field whatever its tag."""
    first = rest[0]
    return first.pos_ in ("VERB", "X") and (len(rest) == 1 or rest[1].pos_ in ("ADP", "PUNCT"))


def _verb_compound(rest: list[Token]) -> list[Token]:
    """ "lead time", "due date" tagged as a verb and its object: a verb with a bare noun
    and nothing after it but a preposition is a field ("and lead time into the sheet");
    one with an article ("and calculate the total") stays a verb."""
    nouns = list(itertools.takewhile(lambda t: t.pos_ in ("NOUN", "PROPN"), rest[1:]))
    after = rest[1 + len(nouns) :]
    if rest[0].pos_ == "VERB" and nouns and (not after or after[0].pos_ in ("ADP", "PUNCT")):
        return rest[: 1 + len(nouns)][:MAX_WORDS]
    return []


def _after_determiner(group: list[Token]) -> list[Token]:
    start = 0
    while start < len(group) and group[start].pos_ in ("DET", "PRON"):
        start += 1
    return group[start:]
