"""Classifying the reply to the confirmation summary: pure rules, no I/O.

The model judges ordinary yes/no replies; code overrides it whenever the reply changes
the requirements (a catalogue item not in the notes, or a removal), which is `amend`
whatever the model said.
"""

from __future__ import annotations

import re
from typing import Literal

from catalogue import Catalogue, detect
from schemas.turn import Notes

Verdict = Literal["confirmed", "amend", "unclear"]
VERDICTS: tuple[str, ...] = ("confirmed", "amend", "unclear")

YES = re.compile(
    r"\b(yes|yep|yeah|sure|correct|confirm(ed)?|looks (good|right|great)|sounds (good|right)|"
    r"go ahead|build it|ship it|perfect|exactly|that'?s (right|everything|it|all)|ok(ay)?)\b",
    re.IGNORECASE,
)
CHANGE = re.compile(
    r"\b(no|not|don'?t|change|instead|actually|also|add|remove|drop|replace|but|wait|wrong|missing|except)\b",
    re.IGNORECASE,
)


def heuristic_verdict(text: str) -> Verdict:
    """Rules when no model is available: a change word wins, then a yes, else unclear."""
    if CHANGE.search(text):
        return "amend"
    return "confirmed" if YES.search(text) else "unclear"


def override(text: str, notes: Notes, catalogue: Catalogue, proposed: str) -> tuple[Verdict, str | None]:
    """The final verdict and the code rule that fired (None when the model's stands)."""
    match = detect(text, catalogue)
    noted = set(notes.mentioned_integrations) | set(notes.mentioned_tools)
    if match.removed:
        return "amend", "removal"
    if set(match.mentioned) - noted:
        return "amend", "new_catalogue_mention"
    if proposed not in VERDICTS:
        return heuristic_verdict(text), "invalid_verdict"
    return proposed, None  # type: ignore[return-value]
