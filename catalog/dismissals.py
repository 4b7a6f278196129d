"""Dismissals said about a clause rather than right beside an item.

People rarely put the removal word next to the item: "Payouts go through Stripe, but this
flow shouldn't touch Stripe at all", "Slack — no wait, corp IT killed it", "the committee
uses Notion for minutes, but that's got nothing to do with this", "It's a magazine, not
the email thing." A cue reaches the items of its own clause; a clause that names none
("that's a separate project", "so don't build anything on it") points back at the nearest
clause before it in the sentence that does, and, when none before it does, at the sentence
before when that one names a single item.

Two kinds of cue: a *rejection* removes (the item goes, even if noted earlier), a *context*
cue sets the items aside (not asked for, nothing taken back). An item the same sentence
picks ("it's Teams now, Teams only") is not dismissed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from catalog.phrases import REF, SENTENCE_END, Hit, sentence_start, words
from catalog.structure import dismissing

REJECTION = words(
    r"don['’]?t\s+build\s+(?:anything|it|this|that)"
    r"|(?:shouldn['’]?t|should\s+not|mustn['’]?t|must\s+not|won['’]?t|will\s+not|doesn['’]?t|does\s+not)\s+"
    r"(?:need\s+to\s+|ever\s+)?touch"
    r"|(?:keep|leave)\s+(?:it|that|them|this)\s+out|ignore\s+(?:it|that|this|them)|ignore(?=\s*(?:[.!]|\Z))"
    r"|(?:we|i)\s+(?:do\s+not|don['’]?t|no\s+longer)\s+use|getting\s+rid\s+of|killed|nvm|never\s*mind"
    # "a 4-hour hold on Google Calendar" is a booking, not "hold on".
    # "Margaret keeps going on about Notion, but no.": the clauses before, taken back.
    r"|but\s+no(?=\s*(?:[.!]|\Z))"
    r"|no\s+wait|wait,?\s+no|(?<!\ba\s)(?<!\ban\s)(?<!\bthe\s)(?<!hour\s)(?<!-day\s)hold\s+on|just\s+kidding|j/?k|park\s+(?:that|it|this)"
    r"|nothing\s+(?:goes\s+)?(?:in|to|into|on)(?=\s+(?-i:[A-Z]))"
    # "not the email thing", "that's the yoga pose thing, not the app": the other sense.
    r"|not\s+(?:the|a)\s+(?:app|software|tool|product|service|platform|(?:[\w-]+\s+){0,2}thing)(?!\w)"
    r"|(?:that['’]?s|it['’]?s|is)\s+(?:the|a)\s+(?:[\w-]+\s+){0,2}(?:term|word|sense|pose|magazine|meaning)(?!\w)"
    # "S3 is a berth, nothing to do with Amazon": the word names something else here.
    r"|(?:is|are)\s+(?:just\s+)?(?:a|an|the)\s+[\w-]+(?:\s+[\w-]+)?,?\s+(?:nothing\s+to\s+do\s+with|not\s+(?:the|a|an)\s+)"
)
CONTEXT = words(
    r"not\s+part\s+of\s+(?:this|it|the\s+\w+)"
    r"|(?:separate|different|another|other)\s+(?:project|process|thing|matter|flow|system|job|task|workflow)"
    r"|for\s+next\s+(?:year|season|version|time|release|quarter|month)|not\s+(?:this|the\s+first)\s+(?:build|version|release|round|one)"
    r"|nothing\s+to\s+do\s+with|(?:not|isn['’]?t)\s+for\s+(?:this|now)|(?:a\s+)?later\s+thing|phase\s+(?:2|two)"
    r"|(?<![/.])v2(?![/.])|version\s+2|next\s+version|(?:just|only)\s+context|does\s*n['’]?t\s+matter|doesn['’]?t\s+matter"
    r"|not\s+for\s+this\s+version|not\s+(?:the|for\s+the)\s+(?:computer|bot|system|workflow|automation|machine)(?:['’]s)?"
    r"|that['’]?s\s+(?:just\s+)?how\s+[\w-]+\s+works|no\s+need\s+to\s+automate|nothing\s+to\s+automate"
    # "the outlook thing earlier was just me talking".
    r"|(?:was|is)\s+just\s+me\s+(?:talking|rambling|thinking(?:\s+out\s+loud)?|venting|musing)"
    # "that's not related to this", "but that's all separate".
    r"|(?:not|isn['’]?t|aren['’]?t)\s+related\s+to\s+(?:this|it|the\s+\w+)|unrelated\s+to\s+(?:this|it)"
    r"|(?:that['’]?s|thats|that\s+is|those\s+are|it['’]?s|is|are)\s+(?:all\s+|completely\s+|totally\s+)?separate(?=\s*(?:[.,;!]|\Z))"
)
# A sentence about some of the items, not the step: "angry ones that don't mention bugs",
# "anything without a receipt", "those with no email".
SUBSET_OPENING = re.compile(
    r"\s*(?:and\s+|but\s+|oh\s+and\s+)?(?:the\s+|any\s+|all\s+)?(?:[\w-]+\s+){0,2}?(?:ones|those|anything|anyone)\s+"
    r"(?:that|which|who|with|without|where)(?!\w)",
    re.IGNORECASE,
)
# A clause that points back: a pronoun outside the cue, or nothing but the cue ("hold on").
POINTER = words(r"it|that|this|those|these|them|which|one")
# What divides a sentence into clauses for the cues' reach.
CLAUSE = re.compile(
    r"[,;:()—–]|\s-\s|(?<!\w)(?:but|so|because|though|although)(?!\w)", re.IGNORECASE
)
# "it's MS Teams now", "Teams only", "so Gmail", "use Linear": the sentence's own pick.
PICKED_BEFORE = re.compile(
    r"(?:(?:it['’]?s|its|so|use|just|only|then)\s+(?:(?:ms|the|our)\s+)?)\Z", re.IGNORECASE
)
PICKED_AFTER = re.compile(r"\s*(?:only|now|please|instead)(?!\w)", re.IGNORECASE)


def dismissed_indices(
    text: str, hits: list[Hit], family: Callable[[str], str | None] = lambda _id: None
) -> tuple[set[int], set[int]]:
    """(indices removed by a rejection, indices set aside by a context cue).

    `family` names an id's family: "grab them from our MySQL db. wait no, it's Postgres
    now" takes back the one of the sentence before that the correction names the family of.
    """
    removed: set[int] = set()
    aside: set[int] = set()
    for pattern, into in ((REJECTION, removed), (CONTEXT, aside)):
        for match in pattern.finditer(text):
            opening = sentence_start(text, match.start())
            if SUBSET_OPENING.match(text, opening):
                continue  # "angry ones that don't mention bugs, just ignore them": a filter
            reach = _reach(text, hits, match, family, whole=pattern is CONTEXT)
            into |= {i for i in reach if hits[i].start < opening or not _picked(text, hits[i])}
    for start, end, says_no in dismissing(text) if hits else ():
        # found by the parse rather than a phrase: the same reach as a phrase's cue
        cue = re.compile(re.escape(text[start:end])).search(text, start)
        if cue is None or SUBSET_OPENING.match(text, sentence_start(text, start)):
            continue
        into = removed if says_no else aside
        reach = _reach(text, hits, cue, family, whole=not says_no)
        into |= {i for i in reach if hits[i].start < start or not _picked(text, hits[i])}
    return removed, aside - removed


def _items(hits: list[Hit], start: int, end: int) -> list[int]:
    return [
        i for i, hit in enumerate(hits) if start <= hit.start and hit.end <= end and hit.id != REF
    ]


def _reach(
    text: str,
    hits: list[Hit],
    cue: re.Match[str],
    family: Callable[[str], str | None],
    whole: bool = False,
) -> list[int]:
    """The items a cue speaks of (see the module doc)."""
    opening = sentence_start(text, cue.start())
    closing = SENTENCE_END.search(text, cue.end())
    stop = closing.start() if closing else len(text)
    bounds = [opening, *(m.end() for m in CLAUSE.finditer(text, opening, stop)), stop]
    clauses = list(itertools.pairwise(bounds))
    here = next((k for k, (a, b) in enumerate(clauses) if a <= cue.start() < b), len(clauses) - 1)
    named = _items(hits, *clauses[here])
    own = [i for i in named if not _picked(text, hits[i])]
    if own:
        return own
    if named:  # "wait no, checked with IT, it's MySQL": the pick corrects the sentence before
        corrected = {family(hits[i].id) for i in named} - {None}
        previous = (
            _items(hits, sentence_start(text, max(0, opening - 1)), opening) if opening else []
        )
        return [i for i in previous if family(hits[i].id) in corrected]
    start, end = clauses[here]
    rest = (text[start : cue.start()] + " " + text[cue.end() : end]).strip(" ,.;:!?-—–")
    points = POINTER.search(rest) or (
        POINTER.search(cue[0]) and not cue[0].lower().endswith("this")
    )
    if len(rest.split()) > 1 and not points:
        return []  # "the rest is not part of this": about something else, named or not
    if whole and (earlier := _items(hits, opening, clauses[here][0])):
        return earlier  # context covers everything said before it in the sentence
    for a, b in reversed(clauses[:here]):
        if earlier := _items(hits, a, b):
            return earlier
    if not opening:
        return []
    previous = _items(hits, sentence_start(text, opening - 1), opening)
    if len({hits[i].id for i in previous}) == 1:
        return previous
    corrected = {family(hits[i].id) for i in _items(hits, cue.end(), stop)} - {None}
    return [i for i in previous if family(hits[i].id) in corrected]


def _picked(text: str, hit: Hit) -> bool:
    before = text[max(0, hit.start - 12) : hit.start]
    return bool(PICKED_BEFORE.search(before) or PICKED_AFTER.match(text, hit.end))
