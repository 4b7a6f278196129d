"""What the conversation node must say: pure rules, no I/O.

The model may phrase a question or the summary's opening; code decides the kind of reply
and guarantees that a confirmation summary lists every noted integration and tool, states
what it assumed where the user left a gap, and that the conversation always moves: the
same question is never asked twice in a row.
"""

from __future__ import annotations

import re

from catalog import Catalogue
from catalog.flow import operation_of, ordered, trigger_of
from catalog.operations import operations_for
from schemas.turn import Notes

CONFIRM_PROMPT = "Shall I build it? Reply yes to confirm, or tell me what to change."
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
HINT_QUESTIONS = {
    "starts": "What should start this workflow, or where does its data come from?",
    "results": "Where should the results go, or what should happen at the end?",
}
OPEN_QUESTION = "Got it. Anything else it should do? When you're done, say \"that's everything\"."
# Asked in turn when the preferred question was the last thing said, so none repeats.
OTHER_QUESTIONS = (
    'Noted. Any filters, formats or timing I should know about? If not, say "that\'s everything".',
    "Thanks. Is anything missing from what it should do? Say \"that's everything\" when you're done.",
)
UNCHANGED = "I noted no change from that, so this still stands."
ASSUME_START = (
    "I'll assume you start it by hand; say if a schedule or an event should start it instead."
)
ASSUME_END = "I'll assume it ends with the {name} step and keeps the result in the saved workflow; say if it should go somewhere else."


def names(ids: list[str], catalogue: Catalogue) -> list[str]:
    """Display names of catalogue ids, in the given order."""
    return [entry.name if (entry := catalogue.get(i)) else i for i in ids]


def item_lines(notes: Notes, catalogue: Catalogue) -> list[str]:
    """Code-built lines naming every noted integration and tool."""
    lines = []
    if notes.mentioned_integrations:
        lines.append("Integrations: " + ", ".join(names(notes.mentioned_integrations, catalogue)))
    if notes.mentioned_tools:
        lines.append("Tools: " + ", ".join(names(notes.mentioned_tools, catalogue)))
    return lines


def assumptions(notes: Notes, catalogue: Catalogue) -> list[str]:
    """What the summary assumes where nothing noted starts the workflow or acts at its end."""
    entries = [
        e
        for e in (catalogue.get(i) for i in [*notes.mentioned_integrations, *notes.mentioned_tools])
        if e
    ]
    lines = []
    if entries and not any(e.role in ("trigger", "source") for e in entries):
        lines.append(ASSUME_START)
    if entries and not any(e.role == "action" or e.also_acts for e in entries):
        last = max(
            entries, key=lambda e: ("trigger", "source", "processor", "action").index(e.role)
        )
        lines.append(ASSUME_END.format(name=last.name))
    return lines


def confirmation_summary(notes: Notes, catalogue: Catalogue, wording: str = "") -> str:
    """The confirmation summary: the model's opening (if any), then code's account of the flow
    in the order it runs (what starts it, each step and what it does), what was left out in
    the user's own words, the complete lists, assumptions."""
    opening = wording.strip() or f"Here is what I'll build: {notes.requirement_summary}"
    return "\n".join(
        [
            opening,
            *flow_lines(notes, catalogue),
            *left_out_lines(notes, catalogue),
            *item_lines(notes, catalogue),
            *assumptions(notes, catalogue),
            CONFIRM_PROMPT,
        ]
    )


def operation_name(item: str, operation: str | None) -> str:
    """The operation's name as a person reads it ("New order", "Post a message")."""
    ops = operations_for(item)
    found = next((o for o in (*ops.events, *ops.actions) if o.id == operation), None)
    return found.name if found else ""


def flow_lines(notes: Notes, catalogue: Catalogue) -> list[str]:
    """'Starts: ...' and one numbered line per step, in the order the workflow runs."""
    steps = ordered(notes, catalogue)
    if not steps:
        return []
    trigger = trigger_of(notes, catalogue)
    lines = []
    if trigger is not None:
        what = operation_name(trigger, operation_of(trigger, notes, catalogue))
        lines.append(f"Starts: {catalogue[trigger].name}" + (f" ({what.lower()})" if what else ""))
    else:
        lines.append("Starts: when you run it.")
    for number, item in enumerate([i for i in steps if i != trigger], start=1):
        what = operation_name(item, operation_of(item, notes, catalogue))
        lines.append(f"{number}. {catalogue[item].name}" + (f": {what.lower()}" if what else ""))
    return lines


def left_out_lines(notes: Notes, catalogue: Catalogue) -> list[str]:
    """Every app the user named that the workflow will not use, with their words as the reason."""
    out = [r for r in notes.references if r.role != "wanted" and catalogue.get(r.id)]
    if not out:
        return []
    parts = [
        f'{catalogue[r.id].name} ("{r.quote[:120]}")' if r.quote else catalogue[r.id].name
        for r in out
    ]
    return ["Left out: " + "; ".join(parts)]


def candidate_questions(notes: Notes) -> list[str]:
    """Questions in order of preference: the hints' first, then the open ones."""
    steered = [HINT_QUESTIONS[k] for hint in notes.hints for k in HINT_QUESTIONS if k in hint]
    return list(dict.fromkeys([*steered, OPEN_QUESTION, *OTHER_QUESTIONS]))


def same_text(a: str, b: str) -> bool:
    """Equal but for case, spacing and punctuation: what a user would call the same question."""
    return _alnum(a) == _alnum(b)


def _alnum(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def fallback_question(notes: Notes, previous: str = "") -> str:
    """The preferred question that is not the one the user was just asked."""
    return next(q for q in candidate_questions(notes) if not same_text(q, previous))


def acceptable_question(text: str, previous: str = "") -> bool:
    """A model-phrased question is used only if it is a short, real, new question."""
    text = text.strip()
    return 8 <= len(text) <= 300 and text.endswith("?") and not same_text(text, previous)


def confirmation_reply(notes: Notes, catalogue: Catalogue, previous: str = "") -> str:
    """The summary; said again unchanged, it first says so, so no reply repeats the last."""
    summary = confirmation_summary(notes, catalogue)
    return f"{UNCHANGED} {summary}" if same_text(summary, previous) else summary


def next_reply(notes: Notes, ready: bool, previous: str, catalogue: Catalogue) -> tuple[str, str]:
    """Code's reply when no model phrases it: (kind, text)."""
    if ready:
        return "confirmation", confirmation_reply(notes, catalogue, previous)
    return "question", fallback_question(notes, previous)


def unclear_reply(text: str, previous: str) -> str:
    """The answer to a reply that is neither a yes nor a change: never the same twice."""
    first, again = (ANSWER, ANSWER_AGAIN) if QUESTION.search(text) else (CLARIFY, CLARIFY_AGAIN)
    return again if same_text(first, previous) else first
