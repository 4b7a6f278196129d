"""What a user's message says about catalogue items: pure rules, no I/O.

`detect` is the code-owned reading of one message that the model's reading is checked
against: which items the user names, and which they take out. `evidence` lets callers
reject an id a model claims the user mentioned when the user's words do not support it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from catalog.choices import chosen_ids, chosen_over
from catalog.dismissals import dismissed_indices
from catalog.functions import (
    arithmetic_hits,
    conversion_hits,
    derived_hits,
    feeling_hits,
    inbound_call_hits,
    picture_reading_hits,
    text_message_hits,
    text_verb_hits,
    web_search_hits,
)
from catalog.guards import (
    allowed,
    covered,
    left_of_capacity_hits,
    picture_text_hits,
    product_sense,
    sentence_of,
    sentiment_scale_hits,
    summary_noun_hits,
    web_lookup_hits,
)
from catalog.lexicon import phrase_hits, ref_hits
from catalog.model import Catalogue
from catalog.phrases import REF, Hit, alias_hits, without_overlaps
from catalog.removals import historical_indices, removed_indices
from catalog.retractions import corrects_previous, persisting, rejected_indices
from catalog.schedule import schedule_hits
from catalog.structure import (
    data_roles,
    descriptions,
    doing_already,
    habits,
    moved_to,
    roles,
    uses,
)
from catalog.typos import typo_hits

# Items whose references are patterns rather than fixed phrases; used only when the
# catalogue has the id.
FINDERS: dict[str, Callable[[str], list[Hit]]] = {
    "scheduler": schedule_hits,
    "text_summarizer": summary_noun_hits,
    "web_search": web_lookup_hits,
    "ocr": picture_text_hits,
    "sentiment": sentiment_scale_hits,
    "calculator": left_of_capacity_hits,
}
# References the sentence's parse finds (catalog/functions.py): the parse has already
# decided the word's sense, so no phrase guard second-guesses them.
PARSED: dict[str, Callable[[str], list[Hit]]] = {
    "calculator": lambda text: conversion_hits(text) + arithmetic_hits(text) + derived_hits(text),
    "twilio_sms": text_message_hits,
    "sentiment": feeling_hits,
    "webhook": inbound_call_hits,
    "web_search": web_search_hits,
    "ocr": picture_reading_hits,
}


@dataclass(frozen=True)
class MatchResult:
    """The ids one message positively mentions and the ids it explicitly removes.

    `removed_refs` are removals by a back-reference ("drop the sheet"): each a group of the
    ids the reference could mean, applied by the caller only to an item already noted.
    `restored_refs` bring an item back by a reference ("put the calendar event back in"),
    applied by the caller only to an item the user removed earlier.
    `swap` says the message replaces something ("post it there instead", "back to Slack").
    `retracted` are ids of a sentence the next one takes back ("Post them in Slack. Actually
    no, scratch that"): gone if this message brought them, kept if they were noted before
    (the sentence restated them on its way to the change).
    `chosen` are named ids the message picks as the one of their family ("stick with
    Trello", "back to WhatsApp"), so noted alternatives of that family go.
    `past` are ids named only as history ("we used to track this in Jira", "I used to check
    it by hand every night"): not asked for, and not taken back either, so an item the user
    asked for earlier stays.
    """

    mentioned: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    past: tuple[str, ...] = ()
    retracted: tuple[str, ...] = ()
    chosen: tuple[str, ...] = ()
    removed_refs: tuple[tuple[str, ...], ...] = ()
    restored_refs: tuple[tuple[str, ...], ...] = ()
    swap: bool = False
    quotes: tuple[tuple[str, str], ...] = ()  # (id, the sentence of its last reference)
    uses: tuple[tuple[str, str], ...] = ()  # (id, event|source|destination) where clear
    offsets: tuple[tuple[str, int], ...] = ()  # (id, where the message first names it)

    def use(self, id_: str) -> str | None:
        """How the message uses the app (event, source, destination), if it says."""
        return next((u for i, u in self.uses if i == id_), None)

    def offset(self, id_: str) -> int:
        """Where in the message the app is first named (0 when it is not)."""
        return next((at for i, at in self.offsets if i == id_), 0)

    def quote(self, id_: str) -> str:
        """The user's sentence that last refers to the id in this message ("" if none)."""
        return next((q for i, q in reversed(self.quotes) if i == id_), "")


ALONGSIDE = re.compile(
    r"(?<!\w)(?:also|too|as\s+well|after\s+all|both|in\s+addition)(?!\w)", re.IGNORECASE
)
# "use Teams instead", "back to Slack", "switch to Discord": the new item replaces another.
SWAP = re.compile(
    r"(?<!\w)(?:instead(?!\s+of)|back\s+to|switch(?:ing)?\s+to|mov(?:e|ing)\s+(?:it\s+|this\s+|them\s+)?(?:over\s+)?to)(?!\w)",
    re.IGNORECASE,
)


# "the automation itself should simply run whenever a notice arrives", "not on a timer":
# the user says the workflow has no schedule, so whatever times were said are not one.
EVENT_ONLY = re.compile(
    r"(?<!\w)(?:not|never)\s+(?:on\s+a\s+(?:timer|schedule|clock)|at\s+(?:a\s+)?fixed\s+(?:times?|hours?)|scheduled)(?!\w)"
    r"|(?<!\w)no\s+(?:timer|schedule|cron|timing)s?\s+(?:is\s+|are\s+)?(?:needed|necessary|required)(?!\w)"
    r"|(?<!\w)(?:the\s+(?:workflow|automation|whole\s+thing|bot|flow)|it|this|everything)(?:\s+itself)?\s+"
    r"(?:should|must|can|will|has\s+to|needs\s+to)\s+(?:just\s+|simply\s+|only\s+|always\s+)?"
    r"(?:run|fire|trigger|go|happen|kick\s+off|come)\s+(?:(?:right|straight)\s+away\s+|immediately\s+)?"
    r"(?:whenever|when|as\s+soon\s+as|each\s+time|every\s+time|the\s+moment|once)(?!\w)"
    # "the email should go immediately whenever a report comes in"
    r"|(?<!\w)the\s+(?:e-?mail|message|post|alert|notification|text|sms|reminder|update|ping)s?\s+"
    r"(?:should|must|has\s+to|needs\s+to|can)\s+(?:go|fire|be\s+sent|come)\s+(?:out\s+)?"
    r"(?:(?:right\s+away|immediately|straight\s+away|instantly)\s+)?(?:whenever|when|as\s+soon\s+as|the\s+moment)(?!\w)",
    re.IGNORECASE,
)


def hits(text: str, catalogue: Catalogue) -> list[Hit]:
    """Every catalogue reference in the text, in order, overlaps resolved.

    Names (aliases in their product sense, and pattern finders) come first; a paraphrase
    counts only where no name stands, so "our Slack API" is Slack, not an HTTP request.
    """
    found = [
        hit for hit in alias_hits(text, catalogue) if product_sense(text, hit, catalogue[hit.id])
    ] + typo_hits(text, catalogue)
    for id_, finder in FINDERS.items():
        found += finder(text) if catalogue.get(id_) is not None else []
    found = [hit for hit in found if allowed(text, hit)]
    for id_, finder in PARSED.items():
        found += finder(text) if catalogue.get(id_) is not None else []
    named = without_overlaps(found)
    paraphrased = without_overlaps(
        # "text it to my phone": the verb counts where no phrase says more ("text anyone").
        [hit for hit in phrase_hits(text, catalogue) + text_verb_hits(text) if allowed(text, hit)]
    )
    free = [
        hit
        for hit in paraphrased
        if not any(hit.start < n.end and n.start < hit.end for n in named)
    ]
    data = [m.span(1) for m in WORDING.finditer(text)]
    data += [m.span() for m in ADDRESS.finditer(text)]
    return sorted(h for h in named + free if not any(a <= h.start and h.end <= b for a, b in data))


# "the card should say 'keys in dropbox'": words the workflow writes, not a step of it.
WORDING = re.compile(
    r"(?:(?<!\w)(?:say|says|saying|said|read|reads|reading|text|wording|subject|title|titled|caption"
    # "who has 'no SMS' written in the notes", "marked 'Outlook'", "Example: 'the intercom ...'".
    r"|has|have|with|marked|labell?ed|tagged|flagged|containing|contains|example|e\.g\."
    # "base 'Summer Tournament', table 'Teams'", "a list called 'Slack ideas'": a thing's name.
    r"|called|named|table|base|sheet|tab|board|list|channel|folder|column|project|group|page)"
    r"\s*:?|:)\s*[\"'‘“]([^\"'’”\n]{1,200})[\"'’”]",
    re.IGNORECASE,
)


# "rdelgado@hotmail.com", "ops@slack-alerts.io": an address is data, whatever names are in it.
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def senders(catalogue: Catalogue) -> frozenset[str]:
    """The apps that send messages: "email her from our Gmail" has Gmail do the sending."""
    return frozenset(e.id for e in catalogue.entries if e.family in ("email", "messaging"))


def _family_of(catalogue: Catalogue, id_: str) -> str | None:
    entry = catalogue.get(id_) if id_ != REF else None
    return entry.family if entry is not None else None


# Families that are ways of telling someone: one may stand in for another.
TELLING = {"email", "messaging"}


def _way_of(catalogue: Catalogue, id_: str) -> str | None:
    """An app's family, the ways of telling someone counted as one."""
    family = _family_of(catalogue, id_)
    return "telling" if family in TELLING else family


def find_mentions(text: str, catalogue: Catalogue) -> list[str]:
    """Every id the text refers to, in order of first appearance, removals included.

    Use `detect` to tell a mention from a removal.
    """
    return list(dict.fromkeys(hit.id for hit in hits(text, catalogue)))


def detect(text: str, catalogue: Catalogue) -> MatchResult:
    """Mentions and removals; an item's last reference in the message decides which it is."""
    found = hits(text, catalogue)
    refs = back_references(text, found, catalogue)
    candidates = sorted(found + list(refs))
    rejected, aside = dismissed_indices(text, candidates, lambda id_: _family_of(catalogue, id_))
    retracted = rejected_indices(text, candidates)
    # "actually no, HubSpot already notifies them. skip that": what the sentence taken back
    # says of an app as a fact is no request of it, so there is nothing to take back.
    facts = roles(text, [candidates[i] for i in retracted if candidates[i].id != REF])
    stated_only = {i for i in retracted if facts.get(candidates[i]) == "context"}
    retracted -= stated_only
    indices = removed_indices(text, candidates) | retracted | rejected
    retracted -= indices - retracted  # a removal said outright is more than a retraction
    indices |= persisting(text, candidates, indices)
    indices |= chosen_over(text, candidates, catalogue)
    history = (historical_indices(text, candidates) | aside | stated_only) - indices
    history |= persisting(text, candidates, history) - indices
    gone = {candidates[i] for i in indices}
    then = {candidates[i] for i in history}
    taken_back = {candidates[i] for i in retracted}
    # Where the rules saw a plain mention, the sentence's structure may see more. A time is
    # not an app: "I don't want a message every day" is about how often, which the schedule
    # rules read.
    plain = [h for h in found if h not in gone | then | taken_back and h.id != "scheduler"]
    read = roles(text, plain)
    then |= descriptions(text, [h for h in found if h.id == "scheduler" and h not in gone])
    gone |= {hit for hit, role in read.items() if role == "turned_down"}
    then |= {hit for hit, role in read.items() if role == "context"}
    said_out = [h for h in found if h in gone and h not in taken_back]
    # "she never opens Discord, so WhatsApp her as well": a habit explains another way of
    # reaching someone the message asks for; said alone ("the volunteers don't check
    # Discord") it stands as the reason to leave the app out.
    kept = {_way_of(catalogue, h.id) for h in found if h not in gone | then}
    # "Dani never opens Notion, so do send the Gmail after all": a habit that explains an
    # app added alongside (also, too, as well, after all) is its reason, not a removal.
    alongside = bool(kept) and ALONGSIDE.search(text) is not None
    reasons = {h for h in habits(text, said_out) if alongside or _way_of(catalogue, h.id) in kept}
    data = data_roles(text, said_out) | reasons | doing_already(text, said_out)
    gone, then = gone - data, then | data
    last = {
        hit.id: "retracted"
        if hit in taken_back
        else "removed"
        if hit in gone
        else "past"
        if hit in then
        else "named"
        for hit in found
    }
    # "scratch the texting. We tried SMS last year": history said after a removal keeps it removed.
    for hit in found:
        if hit in gone and last[hit.id] == "past":
            last[hit.id] = "removed"
    order = dict.fromkeys(hit.id for hit in found)
    named = {id_ for id_, state in last.items() if state == "named"}
    if EVENT_ONLY.search(text) and catalogue.get("scheduler") is not None:
        order.setdefault("scheduler")
        last["scheduler"] = "removed"
    return MatchResult(
        mentioned=tuple(id_ for id_ in order if last[id_] == "named"),
        removed=tuple(id_ for id_ in order if last[id_] == "removed"),
        past=tuple(id_ for id_ in order if last[id_] == "past"),
        retracted=tuple(id_ for id_ in order if last[id_] == "retracted"),
        chosen=tuple(i for i in chosen_ids(text, found, catalogue) if last.get(i) == "named"),
        removed_refs=tuple(
            group
            for hit, group in refs.items()
            if hit in gone and (not bare(text, hit) or bare_part_dropped(text, hit))
        ),
        restored_refs=tuple(
            group
            for hit, group in refs.items()
            if hit not in gone and hit not in then and not bare(text, hit) and restores(text, hit)
        ),
        swap=bool(found) and bool(SWAP.search(text) or moved_to(text, found)),
        quotes=tuple((hit.id, sentence_of(text, hit.start).strip()) for hit in found),
        uses=tuple(
            (h.id, u)
            for h, u in uses(text, [h for h in found if h.id in named], senders(catalogue)).items()
        ),
        offsets=tuple((id_, next((h.start for h in found if h.id == id_), 0)) for id_ in order),
    )


# "put the calendar event back in", "bring back the sheet", "add the texts back": a verb of
# putting, the reference (and at most two words naming the part), then "back".
RESTORE_BEFORE = re.compile(
    r"(?<!\w)(?:put|bring|add|include|get|want|need)\s+(?:back\s+)?(?:the|that|this|those|my|our)?\s*\Z",
    re.IGNORECASE,
)
RESTORE_AFTER = re.compile(r"(?:[\s-]+[\w'’]+){0,2}?\s+back(?!\w)", re.IGNORECASE)
BROUGHT_BACK = re.compile(
    r"(?<!\w)(?:bring|put|add)\s+back\s+(?:the|that|this|those|my|our)?\s*\Z", re.IGNORECASE
)


# "the email" alone is as often the message the workflow handles ("delete the email",
# "skip the email if it is spam") as the plan's email step. It points back at the step only
# as the whole object of a verb that never acts on a message, with nothing after it.
BARE_REFS = {"email", "emails", "e-mail", "e-mails"}
BARE_DROP = re.compile(
    r"(?<!\w)(?:forget(?:\s+about)?|scrap|scratch|ditch|nix|lose|leave\s+out|no\s+need\s+for"
    r"|(?:don['’]?t|do\s+not)\s+need)\s+(?:the|that|this|those|these|my|our)\s+\Z",
    re.IGNORECASE,
)
BARE_END = re.compile(r"\s*(?:[.,;!?\n]|\Z|(?:too|altogether|entirely|then)(?!\w))", re.IGNORECASE)


def bare(text: str, ref: Hit) -> bool:
    """Whether the reference is a bare common noun (see BARE_REFS)."""
    return " ".join(text[ref.start : ref.end].lower().split()) in BARE_REFS


# "no email is needed here", "no emails necessary": the whole kind of output is unwanted.
BARE_NONE = re.compile(r"(?<!\w)no\s+\Z", re.IGNORECASE)
BARE_UNNEEDED = re.compile(
    r"\s+(?:(?:is|are)\s+)?(?:needed|necessary|required|wanted)(?!\w)", re.IGNORECASE
)


def bare_part_dropped(text: str, ref: Hit) -> bool:
    """ "forget the email, I never read those": a bare reference dropped as a whole."""
    before = text[max(0, ref.start - 40) : ref.start]
    if BARE_NONE.search(before) and BARE_UNNEEDED.match(text, ref.end):
        return True
    return bool(BARE_DROP.search(before) and BARE_END.match(text, ref.end))


def restores(text: str, ref: Hit) -> bool:
    """Whether a back-reference is being brought back (see RESTORE_BEFORE)."""
    before = text[max(0, ref.start - 40) : ref.start]
    if BROUGHT_BACK.search(before):
        return True
    return bool(RESTORE_BEFORE.search(before) and RESTORE_AFTER.match(text, ref.end))


def back_references(
    text: str, found: list[Hit], catalogue: Catalogue
) -> dict[Hit, tuple[str, ...]]:
    """Generic nouns that may point back at noted items, where no item is named."""
    groups: dict[tuple[int, int], list[str]] = {}
    for ref in ref_hits(text, catalogue):
        if not any(ref.start < hit.end and hit.start < ref.end for hit in found):
            groups.setdefault((ref.start, ref.end), []).append(ref.id)
    spans = without_overlaps([Hit(start, end, "") for start, end in groups])
    return {Hit(h.start, h.end, REF): tuple(groups[(h.start, h.end)]) for h in spans}


def taken_back_from(before: str, text: str, catalogue: Catalogue) -> tuple[str, ...]:
    """Ids of the user's previous message that this one opens by taking back: "email the
    supplier from Outlook", then "hmm no. just a Trello card per product". The rule is the
    one within a message (`rejected_indices`), read across the two."""
    if not before.strip() or not corrects_previous(text):
        return ()
    head = before.rstrip()
    joined = f"{head}{'' if head[-1] in '.!?' else '.'} {text}"
    found = hits(joined, catalogue)
    cut = len(head)
    taken = [found[i].id for i in sorted(rejected_indices(joined, found)) if found[i].end <= cut]
    # "wait no, we moved off Slack to Discord": when the correction names what stands in,
    # only the items of its kind are taken back (the translation said before stays).
    kinds = {_family_of(catalogue, h.id) for h in found if h.start > cut} - {None}
    replaced = [i for i in taken if _family_of(catalogue, i) in kinds]
    return tuple(dict.fromkeys(replaced or taken))


def evidence(id: str, text: str, catalogue: Catalogue) -> str | None:
    """The user's words that name `id` (mention or removal alike), or None if nothing does."""
    return next((text[hit.start : hit.end] for hit in hits(text, catalogue) if hit.id == id), None)


def names(id: str, quote: str, catalogue: Catalogue) -> bool:
    """Whether the quote names the item by an alias, a lexicon phrase or a name with a slip
    (idioms excepted).

    Looser than `hits`: a model's judgment may settle what the sense rules left ambiguous.
    """
    entry, finder = catalogue.get(id), FINDERS.get(id)
    if entry is None:
        return False
    every = (
        alias_hits(quote, catalogue) + phrase_hits(quote, catalogue) + typo_hits(quote, catalogue)
    )
    found = [h for h in every if h.id == id]
    found += finder(quote) if finder else []
    return any(not (entry.ordinary and covered(quote, h, entry.ordinary)) for h in found)


# A quote that points at a function rather than a name must point: a few words, not a
# paragraph that happens to hold "total" somewhere.
MAX_SENSE_WORDS = 12
WORD = re.compile(r"[\w%;]+")


def about(id: str, quote: str, catalogue: Catalogue) -> bool:
    """Whether a short quote speaks of what the item does ("get a text right away" for SMS,
    "convert the amount to USD" for the calculator), by a word of the item's senses.

    Only a model's judgement uses this: a sense word alone is too loose for the rules.
    """
    entry = catalogue.get(id)
    words = [w.lower() for w in WORD.findall(quote)]
    if entry is None or not entry.senses or not words or len(words) > MAX_SENSE_WORDS:
        return False
    return any(w.startswith(stem) for w in words for stem in entry.senses if len(stem) > 2) or any(
        stem in w for w in words for stem in entry.senses if len(stem) <= 2
    )


# What people call a family's things when the app is already known ("the auto email is
# fine", "keep logging to the sheet"): a model may refer back to a noted app so.
FAMILY_NOUNS = {
    "email": ("email", "mail", "inbox"),
    "messaging": ("channel", "message", "chat", "post", "text", "dm"),
    "tables": ("sheet", "spreadsheet", "table", "row", "base"),
    "files": ("folder", "file", "drive", "upload"),
    "tasks": ("ticket", "task", "card", "issue", "board"),
    "code": ("repo", "release", "commit", "pull request", "issue"),
    "crm": ("contact", "deal", "lead", "crm"),
    "support": ("ticket", "conversation", "chat"),
    "databases": ("database", "db", "table", "row", "query"),
    "http": ("url", "endpoint", "link", "request", "api"),
}


def of_family(id: str, quote: str, catalogue: Catalogue) -> bool:
    """Whether a short quote speaks of the kind of thing the item's family holds ("the
    email", "the sheet"): evidence only for an app the conversation already named."""
    entry = catalogue.get(id)
    words = [w.lower() for w in WORD.findall(quote)]
    nouns = FAMILY_NOUNS.get(entry.family or "", ()) if entry is not None else ()
    if not words or len(words) > MAX_SENSE_WORDS:
        return False
    return any(w.startswith(noun) for w in words for noun in nouns if " " not in noun) or any(
        noun in quote.lower() for noun in nouns if " " in noun
    )
