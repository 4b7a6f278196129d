"""What the matcher reads of one message, in the two sets the corpus tests compare."""

from __future__ import annotations

from catalog import detect, load_catalogue

CATALOGUE = load_catalogue()


def reading(text: str) -> tuple[set[str], set[str]]:
    """(ids asked for, ids not asked for: removed, retracted, or named as history/context)."""
    result = detect(text, CATALOGUE)
    return set(result.mentioned), set(result.removed) | set(result.past) | set(result.retracted)
