"""What the conversation node must say: pure rules, no I/O.

The model may phrase a question or the summary's opening; code decides the kind of reply
and guarantees that a confirmation summary lists every noted integration and tool, states
what it assumed where the user left a gap, and that the conversation always moves: the
same question is never asked twice in a row.
"""

from __future__ import annotations

import re

from catalog import Catalogue, find_mentions
from schemas.turn import Notes
from services.conversation import changes
from services.conversation.summary import (
    CONFIRM_PROMPT,
    UNCHANGED,
    UPDATED,
    confirmation_summary,
    open_questions,
)

CLARIFY = "I didn't catch whether that was a yes. " + CONFIRM_PROMPT
CLARIFY_AGAIN = "I'm still waiting for a yes before I build anything. " + CONFIRM_PROMPT
# A question while confirming changes nothing by itself; the session says so and waits.
ANSWER = (
    "That question doesn't change the workflow, so the summary above still stands; "
    "if something should be different, tell me what. " + CONFIRM_PROMPT
)
ANSWER_AGAIN = "Nothing in the summary above has changed. " + CONFIRM_PROMPT
QUESTION = re.compile(
    r"\?|\bquick question\b|^\W*(?:do|does|did|can|could|will|would|is|are|how|what|when|where|why|who)\b",
    re.IGNORECASE,
)
CONFIRMED = "Thanks, confirmed. I'm compiling the plan for your workflow now."
# Asked in turn when nothing specific is open, each only if it was not the last question.
OPEN_QUESTIONS = (
    "Anything else it should do? When you're done, say \"that's everything\".",
    'Any filters, formats or timing I should know about? If not, say "that\'s everything".',
    "Is anything missing from what it should do? Say \"that's everything\" when you're done.",
)
NOTED = ("Got it.", "Noted.", "Thanks.")


def candidate_questions(notes: Notes) -> list[str]:
    """Questions in order of preference: what the workflow still needs, then the open ones."""
    return list(dict.fromkeys([*open_questions(notes), *OPEN_QUESTIONS]))


def asked_in(question: str, previous: str) -> bool:
    """The question was part of the previous reply, however it was introduced."""
    return bool(_alnum(question)) and _alnum(question) in _alnum(previous)


def same_text(a: str, b: str) -> bool:
    """Equal but for case, spacing and punctuation: what a user would call the same question."""
    return _alnum(a) == _alnum(b)


def _alnum(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def fallback_question(notes: Notes, previous: str = "") -> str:
    """The most important question that is not the one the user was just asked."""
    return next(q for q in candidate_questions(notes) if not asked_in(q, previous))


def question_reply(notes: Notes, previous: str, catalogue: Catalogue, before: Notes | None) -> str:
    """What this message changed, then the next question (never the one just asked)."""
    said = changes.acknowledgement(before, notes, catalogue) if before is not None else ""
    question = fallback_question(notes, previous)
    opener = said or next(n for n in NOTED if not previous.startswith(n))
    return f"{opener} {question}"


def names_only_noted_apps(text: str, notes: Notes, catalogue: Catalogue) -> bool:
    """Every app the text names is one the user referred to (wanted, left out or context)."""
    known = {r.id for r in notes.references}
    known |= {*notes.mentioned_integrations, *notes.mentioned_tools, *notes.removed}
    return set(find_mentions(text, catalogue)) <= known


def acceptable_question(text: str, previous: str = "") -> bool:
    """A model-phrased question is used only if it is a short, real, new question."""
    text = text.strip()
    return 8 <= len(text) <= 300 and text.endswith("?") and not same_text(text, previous)


def confirmation_reply(
    notes: Notes, catalogue: Catalogue, previous: str = "", words: str = ""
) -> str:
    """The summary; said again unchanged, it first says so, so no reply repeats the last.
    `words`: what the user said, for the values each step shows."""
    summary = confirmation_summary(notes, catalogue, words=words)
    if same_text(summary, previous):
        return f"{UNCHANGED} {summary}"
    # A summary shown again after a change says so first: the user sees it took.
    return f"{UPDATED} {summary}" if CONFIRM_PROMPT in previous else summary


def next_reply(
    notes: Notes,
    ready: bool,
    previous: str,
    catalogue: Catalogue,
    before: Notes | None = None,
    words: str = "",
) -> tuple[str, str]:
    """Code's reply when no model phrases it: (kind, text). `before`: the notes this
    message changed, so the question first says what changed; `words`: the user's."""
    if ready:
        return "confirmation", confirmation_reply(notes, catalogue, previous, words)
    return "question", question_reply(notes, previous, catalogue, before)


def unclear_reply(text: str, previous: str) -> str:
    """The answer to a reply that is neither a yes nor a change: never the same twice."""
    first, again = (ANSWER, ANSWER_AGAIN) if QUESTION.search(text) else (CLARIFY, CLARIFY_AGAIN)
    return again if same_text(first, previous) else first
