"""What the conversation node must say: pure rules, no I/O.

The model may phrase a question or the summary's opening; code decides the kind of reply
and guarantees that a confirmation summary lists every noted integration and tool.
"""

from __future__ import annotations

from catalogue import Catalogue
from schemas.turn import Notes

CONFIRM_PROMPT = "Shall I build it? Reply yes to confirm, or tell me what to change."
CLARIFY = "I didn't catch whether that was a yes. " + CONFIRM_PROMPT
CONFIRMED = "Thanks, confirmed. I'm compiling the plan for your workflow now."
HINT_QUESTIONS = {
    "starts": "What should start this workflow, or where does its data come from?",
    "results": "Where should the results go, or what should happen at the end?",
}
OPEN_QUESTION = "Got it. Anything else it should do? When you're done, say \"that's everything\"."


def names(ids: list[str], catalogue: Catalogue) -> list[str]:
    """Display names of catalogue ids, in the given order."""
    return [catalogue.get(i).name if catalogue.get(i) else i for i in ids]


def item_lines(notes: Notes, catalogue: Catalogue) -> list[str]:
    """Code-built lines naming every noted integration and tool."""
    lines = []
    if notes.mentioned_integrations:
        lines.append("Integrations: " + ", ".join(names(notes.mentioned_integrations, catalogue)))
    if notes.mentioned_tools:
        lines.append("Tools: " + ", ".join(names(notes.mentioned_tools, catalogue)))
    return lines


def confirmation_summary(notes: Notes, catalogue: Catalogue, wording: str = "") -> str:
    """The confirmation summary: the model's opening (if any), then code's complete lists."""
    opening = wording.strip() or f"Here is what I'll build: {notes.requirement_summary}"
    return "\n".join([opening, *item_lines(notes, catalogue), CONFIRM_PROMPT])


def fallback_question(notes: Notes) -> str:
    """A question steered by the notes' first hint, when the model gives none."""
    for hint in notes.hints:
        if "starts" in hint:
            return HINT_QUESTIONS["starts"]
        if "results" in hint:
            return HINT_QUESTIONS["results"]
    return OPEN_QUESTION


def acceptable_question(text: str) -> bool:
    """A model-phrased question is used only if it is a short, real question."""
    text = text.strip()
    return 8 <= len(text) <= 300 and text.endswith("?")
