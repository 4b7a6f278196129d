"""What a user's message says about catalogue items: pure rules, no I/O.

`detect` is the code-owned reading of one message that the model's reading is checked
against: which items the user names, and which they take out. `evidence` lets callers
reject an id a model claims the user mentioned when the user's words do not support it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from catalogue.guards import allowed, product_sense, summary_noun_hits
from catalogue.lexicon import phrase_hits, ref_hits
from catalogue.model import Catalogue
from catalogue.phrases import Hit, alias_hits, without_overlaps
from catalogue.removals import removed_indices
from catalogue.schedule import schedule_hits

# Items whose references are patterns rather than fixed phrases; used only when the
# catalogue has the id.
FINDERS: dict[str, Callable[[str], list[Hit]]] = {"scheduler": schedule_hits, "text_summarizer": summary_noun_hits}


@dataclass(frozen=True)
class MatchResult:
    """The ids one message positively mentions and the ids it explicitly removes."""

    mentioned: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


def hits(text: str, catalogue: Catalogue) -> list[Hit]:
    """Every catalogue reference in the text, in order, overlaps resolved.

    Names (aliases in their product sense, and pattern finders) come first; a paraphrase
    counts only where no name stands, so "our Slack API" is Slack, not an HTTP request.
    """
    found = [hit for hit in alias_hits(text, catalogue) if product_sense(text, hit, catalogue.get(hit.id))]
    for id_, finder in FINDERS.items():
        found += finder(text) if catalogue.get(id_) is not None else []
    named = without_overlaps([hit for hit in found if allowed(text, hit)])
    paraphrased = without_overlaps([hit for hit in phrase_hits(text, catalogue) if allowed(text, hit)])
    free = [hit for hit in paraphrased if not any(hit.start < n.end and n.start < hit.end for n in named)]
    return sorted(named + free)


def find_mentions(text: str, catalogue: Catalogue) -> list[str]:
    """Every id the text refers to, in order of first appearance, removals included.

    Use `detect` to tell a mention from a removal.
    """
    return list(dict.fromkeys(hit.id for hit in hits(text, catalogue)))


def detect(text: str, catalogue: Catalogue) -> MatchResult:
    """Mentions and removals; an item's last reference in the message decides which it is."""
    found = hits(text, catalogue)
    gone = removed_indices(text, found)
    last_removed = {hit.id: index in gone for index, hit in enumerate(found)}
    order = dict.fromkeys(hit.id for hit in found)
    return MatchResult(
        mentioned=tuple(id_ for id_ in order if not last_removed[id_]),
        removed=tuple(id_ for id_ in order if last_removed[id_]),
    )


def evidence(id: str, text: str, catalogue: Catalogue) -> str | None:  # noqa: A002 - the catalogue's term
    """The user's words that name `id` (mention or removal alike), or None if nothing does."""
    return next((text[hit.start : hit.end] for hit in hits(text, catalogue) if hit.id == id), None)
