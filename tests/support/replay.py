"""Play a scripted case through the services' pure decisions, in process, in milliseconds.

The same path a turn takes through the handlers (annotator fold, conversation reply,
classifier verdict, planner compile), with Kafka, Redis and the model port left out. It
plays the case the way ../shared/eval/FORMAT.md does (turns, at most two nudges, the
confirmation) so a whole corpus can be checked under several scripted models in a unit
test; the e2e eval plays the same cases through the real stack.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from catalog import Catalogue
from planwire.evaluate import MAX_NUDGES, NUDGE
from schemas.turn import Notes
from services.annotator import logic as annotator
from services.classifier import logic as classifier
from services.conversation import logic as conversation
from services.planner import logic as planner

THRESHOLD = 0.8  # the annotator's default ready threshold

# A scripted model: (previous notes, the user's message) -> what it proposes.
ModelScript = Callable[[Notes, str], annotator.ModelView]


def silent(_notes: Notes, _text: str) -> annotator.ModelView:
    """No model at all: the heuristic backend's annotator proposes nothing of its own."""
    return annotator.ModelView()


@dataclass
class Replay:
    """What a played case produced."""

    plan: list[str] = field(default_factory=list)
    phase: str = "gathering"
    replies: list[tuple[str, str]] = field(default_factory=list)  # (kind, text)
    notes: Notes = field(default_factory=Notes)
    overrides: list[str] = field(default_factory=list)


class Session:
    """One session's state as the services keep it, driven one user message at a time."""

    def __init__(self, catalogue: Catalogue, model: ModelScript = silent) -> None:
        self.catalogue, self.model, self.out = catalogue, model, Replay()
        self.before = ""  # the user's previous message, as the trimmed context holds it

    def say(self, text: str) -> None:
        """One user message, routed by phase as the trimmer's ContextTrimmed is."""
        if self.out.phase == "gathering":
            self.annotate(text)
        elif self.out.phase == "confirming":
            self.classify(text)
        else:
            # The gateway answers 409 to a message after the build started: the case errors.
            self.out.plan, self.out.phase = [], "rejected"
        self.before = text

    def annotate(self, text: str) -> None:
        previous = self.out.notes
        folded = annotator.fold(
            previous,
            text,
            self.model(previous, text),
            self.catalogue,
            THRESHOLD,
            None,
            before=self.before,
        )
        self.out.notes, self.out.overrides = folded.notes, self.out.overrides + folded.overrides
        last = self.out.replies[-1][1] if self.out.replies else ""
        kind, reply = conversation.next_reply(
            folded.notes, folded.ready_for_confirmation, last, self.catalogue
        )
        self.out.phase = "confirming" if kind == "confirmation" else "gathering"
        self.out.replies.append((kind, reply))

    def classify(self, text: str) -> None:
        verdict, _rule = classifier.override(
            text, self.out.notes, self.catalogue, classifier.heuristic_verdict(text)
        )
        if verdict == "confirmed":
            self.out.phase = "executing"
            proposal = planner.proposal_from(
                planner.heuristic_proposal(self.out.notes, self.catalogue)
            )
            compiled = planner.compile_plan(proposal, self.out.notes, self.catalogue)
            self.out.plan = [n.specialist for n in compiled.nodes if n.kind == "specialist"]
        elif verdict == "amend":
            self.out.phase = "gathering"
            self.annotate(text)
        else:
            last = self.out.replies[-1][1] if self.out.replies else ""
            self.out.replies.append(("clarify", conversation.unclear_reply(text, last)))


def replay(case: dict, catalogue: Catalogue, model: ModelScript = silent) -> Replay:
    """Play a FORMAT.md case: its turns, the nudges it allows, then its confirmation."""
    session = Session(catalogue, model)
    for text in case["turns"]:
        session.say(text)
    if session.out.phase == "executing":
        return session.out  # the last turn confirmed: nothing more is sent (planwire.evaluate)
    for _ in range(MAX_NUDGES):
        if session.out.phase == "confirming":
            break
        session.say(NUDGE)
    if session.out.phase == "confirming":
        session.say(case["confirm"])
    return session.out
