"""Context checks for aliases that are also ordinary English.

An alias hit is only a reference to the catalogue item when its context says so: "linear"
is usually an adjective, and "summarize what you have so far" asks the assistant for a
recap rather than describing a workflow step.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from catalogue.phrases import Hit, words

# How far back the context checks look: enough for a few words, and linear in text length.
WINDOW = 24
# "Linear ticket", "linear issues": these nouns make even a lower-case "linear" the product.
LINEAR_NOUN = re.compile(r"(?:\s|-)(?:ticket|issue|project|board|workspace|cycle)s?(?!\w)", re.IGNORECASE)
# A capital letter proves nothing at the start of a sentence ("Linear growth is fine.").
SENTENCE_START = re.compile(r"(?:\A|[.!?]\s+|\n\s*)[\"'(\[*-]*\s*\Z")

# What follows a summary verb when the user wants a recap of the conversation itself.
RECAP_OBJECT = re.compile(
    r"\s+(?:of\s+)?(?:(?:it|everything|this|that)\s+)?(?:(?:for|to)\s+(?:me|us)\s+)?"
    r"(?:what\s+(?:you|we|i)(?!\w)|where\s+we(?!\w)|so\s+far(?!\w)|"
    r"(?:the|our|this|my)\s+(?:conversation|chat|discussion|plan|requirements?|notes)(?!\w))",
    re.IGNORECASE,
)
# "let me digest that": the user thinking, not a digest step.
DIGEST_AS_THINKING = re.compile(r"(?:let\s+me|need\s+to|have\s+to|time\s+to)\s+\Z", re.IGNORECASE)
# "summary" alone is too often a request to the assistant to count, but a recurring or
# changelog summary is something the workflow produces.
SUMMARY_NOUN = words(r"(?:daily|weekly|monthly|nightly|changelog|release)\s+(summar(?:y|ies))")


def linear_is_product(text: str, hit: Hit) -> bool:
    """Linear the product: followed by ticket/issue/..., or capitalised mid-sentence."""
    if LINEAR_NOUN.match(text, hit.end):
        return True
    before = max(0, hit.start - WINDOW)
    return text[hit.start : hit.end] == "Linear" and not SENTENCE_START.search(text, before, hit.start)


def summary_is_a_step(text: str, hit: Hit) -> bool:
    """A summary the workflow produces, not a recap the user asks the assistant for."""
    if RECAP_OBJECT.match(text, hit.end):
        return False
    phrase = text[hit.start : hit.end].lower()
    return not (phrase == "digest" and DIGEST_AS_THINKING.search(text, max(0, hit.start - WINDOW), hit.start))


def summary_noun_hits(text: str) -> list[Hit]:
    """Summarizer hits on "summary" where a qualifier makes it a workflow step."""
    return [Hit(m.start(1), m.end(1), "text_summarizer") for m in SUMMARY_NOUN.finditer(text)]


GUARDS: dict[str, Callable[[str, Hit], bool]] = {
    "linear": linear_is_product,
    "text_summarizer": summary_is_a_step,
}


def allowed(text: str, hit: Hit) -> bool:
    """Whether the hit's context lets it count as a reference to its item."""
    guard = GUARDS.get(hit.id)
    return guard is None or guard(text, hit)
