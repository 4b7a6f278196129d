"""Grounding: does a model's text come from what the user said? Pure functions, no I/O.

A weak model fills free text with well-formed words of its own. A text is grounded when it
carries a {placeholder}, a telling word the user used (stemmed), or no telling word at all
(an id, a number). The step runtime checks config values with it, the indexer titles and
summaries.
"""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")
WORD = re.compile(r"[a-z][a-z0-9]{2,}")
# Words too common to show that a value came from what the user said.
STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "that",
        "this",
        "these",
        "those",
        "there",
        "their",
        "them",
        "they",
        "you",
        "your",
        "our",
        "ours",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "not",
        "but",
        "all",
        "any",
        "each",
        "every",
        "new",
        "per",
        "via",
        "its",
        "use",
        "using",
        "when",
        "then",
        "than",
        "what",
        "which",
        "who",
        "how",
        "why",
        "can",
        "will",
        "would",
        "should",
        "could",
        "may",
        "might",
        "must",
        "also",
        "just",
        "only",
        "more",
        "most",
        "some",
        "such",
        "out",
        "about",
        "over",
        "under",
        "step",
        "here",
        "message",
        "text",
        "value",
        "name",
        "field",
        "data",
        "item",
        "items",
    ]
)
STEM = 5  # words match on their first letters: "invoices" and "invoice", "attachments" and "attachment"


def content_words(text: str) -> set[str]:
    """The telling words of a text, stemmed: what grounding compares."""
    return {w[:STEM] for w in WORD.findall(text.lower()) if w not in STOPWORDS}


def grounded(text: str, user_words: set[str]) -> bool:
    """A {placeholder}, a word the user used, or no telling word at all (an id, a number)."""
    if PLACEHOLDER.search(text):
        return True
    words = content_words(text)
    return not words or bool(words & user_words)
