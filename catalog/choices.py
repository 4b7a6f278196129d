"""One item chosen over others of its kind named in the same sentence.

"Our bassist would rather Telegram, but the fans are on Discord, so just Discord" and "my
neighbour uses WhatsApp for this, but for us Telegram is better" name two messaging apps and
choose one: the other is an alternative considered, not part of the plan. The choice must be
exclusive ("just X", "only X", "X only", "we prefer X", "X is better"); an item listed with
the chosen one ("just Slack and Teams") is chosen too. "X it is" decides between the options
its own sentence names, and only those.
"""

from __future__ import annotations

import re

from catalog.model import Catalogue
from catalog.phrases import REF, SENTENCE_END, Hit, sentence_start, words

# Right before the item, with at most a preposition or "use" between.
CHOSEN_BEFORE = re.compile(
    r"(?<!\w)(?:(?:so|then|but)\s+)?(?:just|only)\s+(?:(?:use|using|on|in|via|to|through|with)\s+)?\Z"
    # "Yes Telegram.", "yes, Trello.": the answer to a choice just weighed.
    r"|(?<!\w\s)(?<![\w,])(?:yes|yep|yeah)[,!]?\s+\Z"
    r"|(?<!\w)(?:we|i)(?:['’]d|\s+would)?\s+(?:much\s+)?(?:rather|prefer)\s+(?:(?:use|using|to\s+use)\s+)?\Z"
    r"|(?<!\w)(?:stick(?:ing)?\s+(?:with|to)|go(?:ing)?\s+with)\s+\Z",
    re.IGNORECASE,
)
# Right after the item.
CHOSEN_AFTER = words(
    # "WhatsApp only for the family chat" is what it is for, not a choice.
    r"only(?!\s+(?:for|to|when|if|with|in|on|at|by|between|among)(?!\w))"
    r"|(?:is|are|works?|would\s+be|seems?)\s+(?:much\s+|far\s+|way\s+|a\s+lot\s+)?(?:better|best|preferable|easier)"
)
# "so Discord it is", "Salesforce lead it is": the decision between the options the sentence
# names; it says nothing of items noted before ("files in Dropbox ... S3 it is" keeps Dropbox).
DECIDED_AFTER = words(r"(?:[\w-]+\s+)?it\s+is(?=\s*(?:[.!,;]|\Z))")
LISTED_WITH = re.compile(r"\s*(?:,|&|/|and|or|plus|as\s+well\s+as)?\s*\Z", re.IGNORECASE)
WINDOW = 40


def chosen_over(text: str, hits: list[Hit], catalogue: Catalogue) -> set[int]:
    """Indices of items another item of their family was chosen over (see module doc)."""
    families = {h.id: family for h in hits if (family := _family(catalogue, h.id))}
    gone: set[int] = set()
    for hit in hits:
        family = families.get(hit.id)
        decided = DECIDED_AFTER.match(text, _skip_space(text, hit.end)) is not None
        if family is None or not (_chosen(text, hit) or decided):
            continue
        opening = sentence_start(text, hit.start)
        if decided and text[:opening].rstrip().endswith("?"):
            # "Dropbox or Drive for the copies? Eh, Drive it is.": the question's options.
            opening = sentence_start(text, len(text[:opening].rstrip()) - 1)
        closing = SENTENCE_END.search(text, hit.end)
        stop = closing.start() if closing else len(text)
        for j, other in enumerate(hits):
            if (
                other.id == hit.id
                or families.get(other.id) != family
                or not (opening <= other.start and other.end <= stop)
                or _listed_together(text, hit, other)
            ):
                continue
            gone.add(j)
    return gone


# "go back to WhatsApp", "stick with Trello": the choice of an item noted before.
RECHOSEN_BEFORE = re.compile(
    r"(?<!\w)(?:(?:go(?:ing)?\s+)?back\s+to|stick(?:ing)?\s+(?:with|to)|stay(?:ing)?\s+(?:with|on)|keep(?:ing)?\s+(?:it\s+)?(?:on|in|with))\s+\Z",
    re.IGNORECASE,
)


def chosen_ids(text: str, hits: list[Hit], catalogue: Catalogue) -> tuple[str, ...]:
    """Ids the message chooses as the one of their family ("just Discord", "stick with
    Trello", "back to WhatsApp"): the caller drops noted alternatives of the same family."""
    chosen = []
    for hit in hits:
        if hit.id == REF or _family(catalogue, hit.id) is None:
            continue
        before = text[max(0, hit.start - WINDOW) : hit.start]
        back = RECHOSEN_BEFORE.search(before)
        if back and NOT_BACK.search(before, 0, back.start()):
            back = None  # "I'd rather edit vertical video than go back to Asana"
        if _chosen(text, hit) or back:
            chosen.append(hit.id)
    return tuple(dict.fromkeys(chosen))


def _family(catalogue: Catalogue, id_: str) -> str | None:
    entry = catalogue.get(id_) if id_ != REF else None
    return getattr(entry, "family", None) if entry is not None else None


NOT_BACK = re.compile(
    r"(?:(?<!\w)(?:than|never|not|rather)|n['’]t)\s+(?:(?:want|wanna|going)\s+(?:to\s+)?)?\Z",
    re.IGNORECASE,
)
# "not only Slack but also Teams": an addition, not a choice.
NOT_BEFORE = re.compile(r"(?<!\w)not\s+\Z", re.IGNORECASE)


def _chosen(text: str, hit: Hit) -> bool:
    before = text[max(0, hit.start - WINDOW) : hit.start]
    cue = CHOSEN_BEFORE.search(before)
    if cue and not NOT_BEFORE.search(before, 0, cue.start()):
        return True
    return bool(CHOSEN_AFTER.match(text, _skip_space(text, hit.end)))


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _listed_together(text: str, a: Hit, b: Hit) -> bool:
    first, second = (a, b) if a.start < b.start else (b, a)
    return bool(LISTED_WITH.fullmatch(text[first.end : second.start]))
