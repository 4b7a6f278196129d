"""The confirmation summary, written by code from the notes: pure rules, no I/O.

In the order the workflow runs (what starts it, each step and what it does), then what was
left out in the user's own words, what is still to fill in, the complete lists of apps and
what it assumed where the user left a gap; a person can catch a wrong reading before it is built.
"""

from __future__ import annotations

from catalog import Catalogue
from catalog.flow import operation_of, ordered, trigger_of
from catalog.operations import operations_for
from schemas.turn import Notes
from services.conversation.details import (
    condition_lines,
    labelled,
    schedule_words,
    stated_config,
)

CONFIRM_PROMPT = "Shall I build it? Reply yes to confirm, or tell me what to change."
TO_FILL = "To fill in later:"
UNCHANGED = "I noted no change from that, so this still stands."
UPDATED = "Updated with what you said."
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
    if entries and trigger_of(notes, catalogue) is None:
        lines.append(ASSUME_START)  # the same reading as the "Starts:" line above
    if entries and not any(e.role == "action" or e.also_acts for e in entries):
        last = max(
            entries, key=lambda e: ("trigger", "source", "processor", "action").index(e.role)
        )
        lines.append(ASSUME_END.format(name=last.name))
    return lines


def confirmation_summary(
    notes: Notes, catalogue: Catalogue, wording: str = "", words: str = ""
) -> str:
    """The confirmation summary: the model's opening (if any), then code's account of the flow
    in the order it runs (what starts it, each step with the values the user stated, the
    conditions), what was left out in the user's own words, the complete lists, assumptions.
    `words`: what the user said, where the stated values are read."""
    opening = wording.strip() or f"Here is what I'll build: {notes.requirement_summary}"
    return "\n".join(
        [
            opening,
            *flow_lines(notes, catalogue, words),
            *condition_lines(words, ordered(notes, catalogue), notes.conditions),
            *left_out_lines(notes, catalogue),
            *to_fill_lines(notes),
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


def flow_lines(notes: Notes, catalogue: Catalogue, words: str = "") -> list[str]:
    """'Starts: ...' and one numbered line per step, in the order the workflow runs, each
    with the values the user stated for it ("channel #ops")."""
    steps = ordered(notes, catalogue)
    if not steps:
        return []
    trigger = trigger_of(notes, catalogue)

    def parts(item: str) -> tuple[str, str, list[str]]:
        """What the step does, when it runs (a schedule in words), its other values."""
        operation = operation_of(item, notes, catalogue)
        stated = stated_config(item, operation, words, steps, catalogue)
        when = schedule_words(stated)
        values = labelled(stated)
        shown = " ".join([when, *values]).lower()
        # What a checked model read that code's own reading does not show, in their words.
        values += [
            f'"{v.text}"' for v in notes.stated if v.id == item and v.text.lower() not in shown
        ]
        return operation_name(item, operation).lower(), when, values

    def line(item: str) -> str:
        what, when, values = parts(item)
        inside = [w for w in (when, *values) if w]
        return what + (f" ({'; '.join(inside)})" if inside else "")

    lines = []
    if trigger is not None:
        what, when, values = parts(trigger)
        if when:  # "Starts: every day at 18:00, time zone UTC unless you tell me yours (...)"
            lines.append(f"Starts: {when}" + "".join(f"; {v}" for v in values))
        else:
            inside = "; ".join([w for w in (what, *values) if w])
            lines.append(f"Starts: {catalogue[trigger].name}" + (f" ({inside})" if inside else ""))
    else:
        lines.append("Starts: when you run it.")
    for number, item in enumerate([i for i in steps if i != trigger], start=1):
        lines.append(f"{number}. {catalogue[item].name}: {line(item)}".rstrip(": "))
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


def to_fill_lines(notes: Notes) -> list[str]:
    """What is still open when the user says they are done: asked later, not blocking."""
    questions = open_questions(notes)
    return [TO_FILL + " " + " ".join(questions)] if questions else []


def open_questions(notes: Notes) -> list[str]:
    """The notes' hints that are questions, most important first (the annotator's order)."""
    return [h.strip() for h in notes.hints if h.strip().endswith("?")]
