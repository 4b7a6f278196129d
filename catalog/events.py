"""Which of an app's events the user described: "when a Stripe payment fails" is Stripe's
*Payment failed*, not its default *Payment received*. Pure.

The words of the user's sentence and of each event's id and name are reduced to stems
("fails", "failed" -> "fail"; "payment", "paid" -> "pay"); the event sharing the most stems
wins, the more specific one (fewer words) on a tie, the app's default event when nothing
tells them apart or no event shares a word with the sentence.
"""

from __future__ import annotations

import re

from catalog.operations import AppOperations

# Irregular forms the suffix rules do not reach.
IRREGULAR = {"paid": "pay", "sent": "send", "sold": "sell", "made": "make", "won": "win"}
SUFFIXES = ("ments", "ment", "ings", "ing", "ies", "ied", "ed", "es", "s")
# Words every event name shares or that say nothing of which event ("a new or changed row").
FILLER = {"a", "an", "the", "or", "in", "to", "of", "on", "by", "another", "matching", "search"}
# "new" helps ("a new issue" is no pull request) but alone never decides.
WEAK = {"new": 0.5}


def stem(word: str) -> str:
    """A rough stem: 'cancelled' -> 'cancel', 'replies' -> 'reply', 'payment' -> 'pay'."""
    word = IRREGULAR.get(word, word)
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word  # "cancell"


def stems(text: str) -> set[str]:
    """The stems of a text's words, fillers left out."""
    return {stem(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in FILLER}


def described_event(ops: AppOperations, words: str) -> str | None:
    """The id of the event of `ops` the words describe best, else the default event."""
    said = stems(words)
    scored = []
    for event in ops.events:
        own = stems(f"{event.id.replace('_', ' ')} {event.name}")
        score = sum(WEAK.get(s, 1.0) for s in own & said)
        scored.append((score, -len(own), event.id))
    best = max(scored, default=(0.0, 0, None))
    if best[0] < 1:
        return ops.default_event
    tied = [s for s in scored if s[0] == best[0]]
    if any(s[2] == ops.default_event for s in tied):
        return ops.default_event
    return best[2]
