"""Which hits sit inside a removal ("drop Slack", "not Dropbox", "Twilio is no longer needed").

A removal phrase applies to the catalogue items directly after it in the same clause
("drop Slack and Trello" removes both; "drop Slack and post to Teams" removes only Slack);
a few phrases apply to the items directly before them ("the SMS part is no longer needed").
Between the phrase and the items only small filler words may stand, so a negation that is
about something else ("No attachments larger than 10 MB") never reaches an item.
"""

from __future__ import annotations

import re

from catalogue.phrases import Hit, words

_LEADING = (
    r"drop(?:ping)?", r"remove", r"delete", r"ditch", r"forget", r"skip", r"exclude", r"leave\s+out",
    r"get\s+rid\s+of", r"replace", r"swap(?:\s+out)?", r"stop\s+using", r"without", r"instead\s+of",
    r"rather\s+than", r"no\s+longer", r"no\s+need\s+for", r"no\s+more", r"don['’]?t", r"do\s+not", r"never",
    r"switch(?:ing)?\s+(?:away\s+)?from", r"mov(?:e|ing)\s+away\s+from", r"migrat(?:e|ing)\s+(?:away\s+)?(?:from|off)",
    r"not", r"no",
)
# Longest first, so "no longer" is not read as "no" followed by the word "longer".
LEADING = words("|".join(sorted(_LEADING, key=len, reverse=True)))
# "Slack is out", "the SMS part is no longer needed", "Slack and Trello are not needed".
TRAILING = words(
    r"(?:is|are)\s+(?:no\s+longer|not)\s+(?:needed|necessary|required|wanted)"
    r"|(?:isn|aren)['’]?t\s+(?:needed|necessary|required|wanted)"
    r"|(?:is|are)\s+out(?!\s+of)"
    r"|(?:can|should)\s+be\s+(?:dropped|removed)"
)
# "don't drop Slack", "why not Slack?": the removal itself is negated or only suggested.
CANCELLED = re.compile(
    r"(?<!\w)(?:don['’]?t|do\s+not|never|not|won['’]?t|shouldn['’]?t|can['’]?t|cannot|why|if)\s+\Z",
    re.IGNORECASE,
)
# Words that may stand anywhere between the phrase and its items.
FILLER = words(
    r"the|a|an|our|my|your|their|that|this|those|these|any\s+more|anymore|any|whole|entire|part|step|bit"
    r"|integration|account|stuff|thing|one|node|connection|either|altogether|entirely|completely|too|as\s+well"
    r"|for\s+now|about"
)
# Verbs that may stand only before the first item: "not to Slack", "don't need the SMS part".
LEAD_IN = words(
    r"need|use|using|want|to|(?:post|send|save|upload|store|put|write|log|push|sync|notify|message)(?:ing|s)?"
    r"(?:\s+(?:it|them|this|that|everything|anything|anymore))?(?:\s+(?:to|into|in|on|via|through))?"
)
LIST_SEPARATOR = re.compile(r",|&|/|(?<!\w)(?:and|or|nor)(?!\w)", re.IGNORECASE)
# An item naming what kind of thing follows is not the thing removed: "skip Gmail messages
# from newsletters" filters messages, "drop a Slack message" sends one.
DESCRIBES_NOUN = re.compile(
    r"(?:\s|-)+(?:message|notification|alert|post|ping|email|mail|ticket|issue|row|file|attachment|record"
    r"|entry|entries|event|order|lead|invoice|contact|task|card|comment|link)s?(?!\w)",
    re.IGNORECASE,
)
# "drop the file into Dropbox": drop as "put", not as "remove".
PLACEMENT = re.compile(r"\s+(?:into|onto|in|to|inside)(?!\w)(?!\s+favou?r)", re.IGNORECASE)
SPACE = re.compile(r"\s*")
# Looking back this far is enough for any negation or filler word, and keeps long texts linear.
WINDOW = 24
# The same fillers and separators, found ending at a position, for trailing phrases.
FILLER_BEFORE = re.compile(rf"(?<!\w)(?:{FILLER.pattern})\Z", re.IGNORECASE)
SEPARATOR_BEFORE = re.compile(rf"(?:{LIST_SEPARATOR.pattern})\Z", re.IGNORECASE)


def removed_indices(text: str, hits: list[Hit]) -> set[int]:
    """Indices into `hits` (non-overlapping, in text order) that a removal applies to."""
    starts = {hit.start: i for i, hit in enumerate(hits)}
    ends = {hit.end: i for i, hit in enumerate(hits)}
    removed: set[int] = set()
    for match in LEADING.finditer(text):
        if not CANCELLED.search(text, max(0, match.start() - WINDOW), match.start()):
            removed |= _after(text, match, hits, starts)
    for match in TRAILING.finditer(text):
        removed |= _before(text, match.start(), hits, ends, plural=match.group(0)[:3].lower() == "are")
    return removed


def _after(text: str, phrase: re.Match[str], hits: list[Hit], starts: dict[int, int]) -> set[int]:
    """The items a leading phrase applies to: fillers and list separators may come between."""
    taken: list[int] = []
    pos = phrase.end()
    while (step := _next(text, pos, hits, starts, bool(taken))) is not None:
        index, pos = step
        if index is not None and DESCRIBES_NOUN.match(text, pos):
            break
        taken += [] if index is None else [index]
    if taken and phrase.group(0).lower().startswith("drop") and PLACEMENT.match(text, pos):
        return set()
    return set(taken)


def _next(text: str, pos: int, hits: list[Hit], starts: dict[int, int], listing: bool) -> tuple[int | None, int] | None:
    """One step forward: (hit index, end) for an item, (None, end) for a filler, None to stop."""
    pos = SPACE.match(text, pos).end()
    if pos in starts:
        return starts[pos], hits[starts[pos]].end
    # Separators only continue a list already begun: "No, Slack is fine" removes nothing.
    gap = FILLER.match(text, pos) or (LIST_SEPARATOR.match(text, pos) if listing else LEAD_IN.match(text, pos))
    return (None, gap.end()) if gap and gap.end() > pos else None


def _before(text: str, pos: int, hits: list[Hit], ends: dict[int, int], plural: bool) -> set[int]:
    """The items a trailing phrase applies to: one for "is", a list for "are"."""
    taken: list[int] = []
    while True:
        while pos and text[pos - 1].isspace():
            pos -= 1
        if pos in ends:
            taken.append(ends[pos])
            pos = hits[ends[pos]].start
            if not plural:
                break
            continue
        window = max(0, pos - WINDOW)
        gap = FILLER_BEFORE.search(text, window, pos) or (SEPARATOR_BEFORE.search(text, window, pos) if taken else None)
        if not gap or gap.start() == pos:
            break
        pos = gap.start()
    return set(taken)
