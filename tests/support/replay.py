"""Play a scripted case through the services' pure decisions, in process, in milliseconds.

The same path a turn takes through the handlers (annotator fold, conversation reply,
classifier verdict, planner compile), with Kafka, Redis and the model port left out. It
plays the case the way ../shared/eval/FORMAT.md does (turns, at most two nudges, the
confirmation) so a whole corpus can be checked under several scripted models in a unit
test; the e2e eval plays the same cases through the real stack. A confirmed replay also
holds the workflow document the steps would save (tests/support/replay_workflow.py).

`python -m tests.support.replay PATH... [--report FILE]` scores cases this way and prints
what `planwire eval` prints (its per-case lines, shape line and last line), in seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catalog import Catalogue, load_catalogue
from planwire import evaluate
from planwire.evaluate import MAX_NUDGES, NUDGE, CaseResult
from schemas.plan import PlanNode
from schemas.turn import ChatMessage, Notes
from services.annotator import logic as annotator
from services.classifier import logic as classifier
from services.conversation import logic as conversation
from services.planner import logic as planner
from tests.support.replay_workflow import workflow_document

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
    # The transcript as the trimmer keeps it (each user message, then its reply), and the
    # compiled plan's nodes: what the steps build the workflow document from.
    transcript: list[ChatMessage] = field(default_factory=list)
    nodes: list[PlanNode] = field(default_factory=list)
    # The document the stack would save (heuristic backend); None until the build starts.
    workflow: dict[str, Any] | None = None


class Session:
    """One session's state as the services keep it, driven one user message at a time."""

    def __init__(self, catalogue: Catalogue, model: ModelScript = silent) -> None:
        self.catalogue, self.model, self.out = catalogue, model, Replay()
        self.before = ""  # the user's previous message, as the trimmed context holds it

    def say(self, text: str) -> None:
        """One user message, routed by phase as the trimmer's ContextTrimmed is."""
        if self.out.phase in ("gathering", "confirming"):
            self.record("user", text)
        if self.out.phase == "gathering":
            self.annotate(text)
        elif self.out.phase == "confirming":
            self.classify(text)
        else:
            # The gateway answers 409 to a message after the build started: the case errors.
            self.out.plan, self.out.phase = [], "rejected"
        self.before = text

    def record(self, role: str, text: str) -> None:
        """A transcript line; a reply belongs to the turn of the user message before it."""
        turns = sum(m.role == "user" for m in self.out.transcript) + (role == "user")
        self.out.transcript.append(ChatMessage(role=role, text=text, turn_id=f"turn-{turns}"))

    def reply(self, kind: str, text: str) -> None:
        """The assistant's reply to the current turn."""
        self.out.replies.append((kind, text))
        self.record("assistant", text)

    def annotate(self, text: str, amending: bool = False) -> None:
        previous = self.out.notes
        folded = annotator.fold(
            previous,
            text,
            self.model(previous, text),
            self.catalogue,
            THRESHOLD,
            None,
            before=self.before,
            history=self.out.transcript,
            amending=amending,
        )
        self.out.notes, self.out.overrides = folded.notes, self.out.overrides + folded.overrides
        last = self.out.replies[-1][1] if self.out.replies else ""
        words = "\n".join(m.text for m in self.out.transcript if m.role == "user")
        kind, reply = conversation.next_reply(
            folded.notes,
            folded.ready_for_confirmation,
            last,
            self.catalogue,
            before=previous,
            words=words,
        )
        self.out.phase = "confirming" if kind == "confirmation" else "gathering"
        self.reply(kind, reply)

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
            self.out.nodes = compiled.nodes
        elif verdict == "amend":
            self.out.phase = "gathering"
            self.annotate(text, amending=True)
        else:
            last = self.out.replies[-1][1] if self.out.replies else ""
            self.reply("clarify", conversation.unclear_reply(text, last))


def replay(case: dict, catalogue: Catalogue, model: ModelScript = silent) -> Replay:
    """Play a FORMAT.md case: its turns, the nudges it allows, then its confirmation."""
    session = Session(catalogue, model)
    for text in case["turns"]:
        session.say(text)
    # A last turn that confirmed started the build: nothing more is sent (planwire.evaluate).
    if session.out.phase != "executing":
        for _ in range(MAX_NUDGES):
            if session.out.phase == "confirming":
                break
            session.say(NUDGE)
        if session.out.phase == "confirming":
            session.say(case["confirm"])
    played = session.out
    if played.phase == "executing":
        summary = played.notes.requirement_summary
        played.workflow = workflow_document(played.nodes, summary, played.transcript, catalogue)
    return played


def scored(raw: dict[str, Any], catalogue: Catalogue, model: ModelScript = silent) -> CaseResult:
    """A case replayed and scored as `planwire eval` scores it (planwire/evaluate.py)."""
    case, started = evaluate.case_from(raw), time.monotonic()
    played = replay(raw, catalogue, model)
    built = played.phase == "executing"
    result = CaseResult(case.id, passed=False, plan=played.plan if built else [])
    result.missing, result.forbidden, result.extra = evaluate.score(case, result.plan)
    result.workflow, result.shape = played.workflow, evaluate.shape_errors(case, played.workflow)
    asked = [text for kind, text in played.replies if kind == "confirmation"]
    result.confirmation = asked[-1] if asked else ""
    result.unconfirmed = evaluate.unconfirmed(case, result.confirmation)
    clean = not (result.missing or result.forbidden or result.extra or result.shape)
    result.passed = built and clean
    result.error = None if built else f"the session ended {played.phase}, no workflow"
    result.turns = sum(m.role == "user" for m in played.transcript)
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _model(name: str | None, case: dict, catalogue: Catalogue) -> ModelScript:
    """The scripted model --scripted names, for one case (the oracle knows its answer)."""
    from tests.support import scripted_models  # it imports this module's ModelScript

    if name == "oracle":
        return scripted_models.oracle(case, catalogue)
    return scripted_models.liar(catalogue) if name == "liar" else silent


def main(argv: list[str] | None = None) -> int:
    """Replay case files and folders; exit 0 only when every case passed, as `planwire eval`."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.replay")
    parser.add_argument("paths", nargs="+", type=Path, help="case files or folders of them")
    parser.add_argument("--report", type=Path, help="write the JSON report here")
    parser.add_argument(
        "--scripted", choices=("oracle", "liar"), help="a scripted model, as planwire eval's"
    )
    args = parser.parse_args(argv)
    catalogue, files = load_catalogue(), evaluate.case_files(args.paths)
    raws = [json.loads(f.read_text()) for f in files]
    results = []
    for raw in raws:
        results.append(scored(raw, catalogue, _model(args.scripted, raw, catalogue)))
        print(evaluate.case_line(results[-1]), flush=True)
    summary = evaluate.summarize(
        results, [evaluate.case_from(r) for r in raws], args.scripted or "heuristic"
    )
    return 0 if evaluate.conclude(results, summary, args.report) else 1


if __name__ == "__main__":
    sys.exit(main())
