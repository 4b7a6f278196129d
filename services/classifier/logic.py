"""Classifying the reply to the confirmation summary: pure rules, no I/O.

The model judges ordinary yes/no replies; code overrides it whenever the reply changes
the requirements (a catalogue item not in the notes, or a removal), which is `amend`
whatever the model said.
"""

from __future__ import annotations

import re
from typing import Literal

from catalog import Catalogue, detect
from catalog.values import crons, stated
from catalog.values.conditions import stated_conditions
from schemas.turn import Notes

Verdict = Literal["confirmed", "amend", "unclear"]
VERDICTS: tuple[Verdict, ...] = ("confirmed", "amend", "unclear")

# A yes must be said, not merely contain a pleasant word: "Rounding is fine" is about
# rounding. Go-phrases count anywhere; yes-words only where the reply opens with them, or in
# a judgement about the summary ("looks good", "that's it").
GO = re.compile(
    r"\b(?:build it|ship it|launch it|run it|start it|go ahead|go for it|do it|proceed|set it up|make it(?: happen| so)?|create it"
    r"|let'?s (?:go|do it|do this)|confirm(?:ed)?|approved?|lgtm|good to go|please build(?=\W*(?:$|[.!,]))|(?:build|fire) away|crack on"
    r"|(?:please\s+)?build (?:that|this)|^\W*(?:yes|yep|yeah|ok(?:ay)?)\W+please)\b|\b(?:go|build)\W*$|👍|✅"
    # "ok yes. does it work for both schools?": a yes said as a sentence of its own.
    r"|^\W*(?:(?:ok(?:ay)?|oh|well|right)\W+)?(?:ye+s+|yep|yup|yeah|sure)(?:\W+please)?\s*[.!]",
    re.IGNORECASE,
)
AFFIRM = re.compile(
    r"\b(?:that'?s (?:right|correct|everything|it|all|the one|the lot)|(?:that )?covers it|(?:looks|sounds|seems) (?:good|right|great|fine|correct)"
    r"|all (?:good|correct|right)|fine by me|works for me|agreed)\b",
    re.IGNORECASE,
)
OPENING_YES = re.compile(
    r"^\W*(?:(?:oh|well|hmm|um|lovely|brilliant|great|perfect|awesome|super|wonderful|amazing|fab|ace|nice"
    r"|cool|ok(?:ay)?|right|thanks|thank\s+you|cheers)\W+)?(?:ye+s+|yep|yup|yeah|ya|sure|correct|perfect|exactly|absolutely"
    r"|definitely|agreed?|approved?|confirmed?)\b"
    # "ok", "right", "great", "fine" open many replies ("Ok I'm done", "ok cool, quick
    # question"): alone they are a yes, as an opener they are not.
    r"|^\W*(?:ok(?:ay)?|right|great|fine|cool)\W*$",
    re.IGNORECASE,
)
# A question asks for an answer, not for the build: "Does it handle emojis?", "quick question".
QUESTION = re.compile(
    r"\?|\bquick question\b|(?:^|[.,:;!]\s*)(?:do|does|did|can|could|will|would|is|are|how|what|when|where"
    r"|why|who|which|should)\s+(?:it|this|that|you|we|i|the|they)\b",
    re.IGNORECASE,
)
# "nothing to change", "no edits", "don't change anything": a confirmation, not a change.
NO_CHANGE = re.compile(
    r"\b(?:no|without|zero|not any)\s+(?:more\s+|further\s+|other\s+)?(?:changes?|edits?|additions?|tweaks?|corrections?|comments?|modifications?|amendments?)\b"
    r"|\bnothing\s+(?:else\s+|more\s+)?(?:to\s+)?(?:change|add|edit|fix|correct)\b"
    r"|\b(?:don'?t|do\s+not)\s+(?:need\s+to\s+)?(?:change|add|edit)\s+(?:anything|a\s+thing)\b"
    r"|\bno,?\s+(?:that'?s|it'?s)\s+(?:all|everything|it|fine|good|right)\b",
    re.IGNORECASE,
)
# Words that name a change: a change request must say what should be different.
CHANGE = re.compile(
    r"\b(change|instead|actually|also|add|remove|drop|replace|swap|switch|rename|missing|forgot|except|wrong"
    r"|should(?:n'?t| not)?|but|rather)\b",
    re.IGNORECASE,
)
# A reply that opens with a hold is not a yes, whatever follows ("No, wait, ...").
HOLD = re.compile(r"^\W*(no|nope|not yet|wait|hold on|stop)\b", re.IGNORECASE)


def heuristic_verdict(text: str) -> Verdict:
    """Rules when no model is available: a named change wins, then a yes, else unclear.

    A question or chit-chat is unclear: the session answers and keeps waiting for a yes.
    """
    words = NO_CHANGE.sub(" ", text)
    said_yes = bool(OPENING_YES.search(words) or AFFIRM.search(words) or GO.match(words))
    if GO.search(words) and said_yes:
        # "Looks right, build it. The thank-you should be signed by Priya": a yes with a
        # detail. A catalogue change in it is still an amend (`override`); the detail stays
        # in the transcript the steps recall.
        return "confirmed"
    if CHANGE.search(words):
        return "amend"
    if HOLD.search(words):
        return "unclear"
    if GO.search(words):
        return "confirmed"
    if QUESTION.search(words):
        return "unclear"
    return "confirmed" if OPENING_YES.search(words) or AFFIRM.search(words) else "unclear"


def states_a_value(text: str) -> bool:
    """The words give a value a step will hold: a name, a channel, an address, a number, a
    schedule or a condition (read by the rules that fill the configs, catalog/values)."""
    return bool(stated.candidates(text) or crons.cron(text) or stated_conditions(text))


def override(
    text: str, notes: Notes, catalogue: Catalogue, proposed: str
) -> tuple[Verdict, str | None]:
    """The final verdict and the code rule that fired (None when the model's stands)."""
    match = detect(text, catalogue)
    noted = set(notes.mentioned_integrations) | set(notes.mentioned_tools)
    if match.removed:
        return "amend", "removal"
    if set(match.mentioned) - noted:
        return "amend", "new_catalogue_mention"
    if heuristic_verdict(text) != "confirmed" and states_a_value(text):
        # "Oh, the sheet tab is called 'This Week'": a detail for the workflow, so the
        # confirmation is shown again with it, rather than asked to be a yes.
        return "amend", "stated_value"
    verdict = next((v for v in VERDICTS if v == proposed), None)
    if verdict is None:
        return heuristic_verdict(text), "invalid_verdict"
    if verdict == "confirmed" and heuristic_verdict(text) == "unclear":
        # Building is the one step a user cannot take back: no yes in the words, no build.
        return "unclear", "confirmed_without_a_yes"
    if verdict == "amend" and heuristic_verdict(text) != "amend":
        # "Yes, nothing to change" is no change request, whatever a model read into "no".
        return heuristic_verdict(text), "amend_names_no_change"
    return verdict, None
