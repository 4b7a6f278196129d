"""The whole topology, declared once: every service, what it consumes and produces, its
consumer group, whether it calls a model.

A contract like the events beside it, so it imports nothing but them: each service's
`main.py` wires its broker from its entry here (`shared.service.Service.declared`), and
`planwire up` (`planwire/specs.py`), the deployment inventory (compose, Kubernetes,
topics) and the AsyncAPI generator read the same list. An event's topic is on the event
class itself (`.topic`). Adding an event: define it in `schemas/`, add it to
`schemas.registry.CONTRACTS`, name it here under its producer and consumers, regenerate
(`planwire docs`, `python -m deploy.render`, `python -m schemas.registry`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from schemas.envelope import Event
from schemas.plan import (
    PlanCompiled,
    RunStep,
    StepCompleted,
    StepProgressed,
    WorkflowCompleted,
    WorkflowFailed,
)
from schemas.turn import ContextTrimmed, NotesUpdated, ReplyDelta, ReplyGenerated, TurnReceived


@dataclass(frozen=True)
class Consumes:
    """An event a service handles with `on_<event_name>` in its handlers.py.

    A service reads all its topics through one consumer, in the group named after it
    (`Node.group`). `former_group`: the group that read this topic on its own until then; a
    service taking over a partition its group has no offset for starts where that group
    stopped (`shared.bus.adopt_offsets`), so an upgrade neither replays nor skips.
    `turn_path`: a user's turn waits on this hop before its reply (the consumer polls at
    `turn_fetch_max_wait_ms` when that is set; see shared/settings.py).
    """

    event: type[Event]
    former_group: str
    turn_path: bool = False


@dataclass(frozen=True)
class Produces:
    """An event a service publishes; the description goes into its AsyncAPI document."""

    event: type[Event]
    description: str


@dataclass(frozen=True, kw_only=True)
class Node:
    """One service: `services/<name>/`, deployed and scaled on its own."""

    name: str
    description: str
    consumes: tuple[Consumes, ...] = ()
    produces: tuple[Produces, ...] = ()
    uses_model: bool = False
    title: str = ""  # the AsyncAPI title; "planwire <name>" when empty

    @property
    def group(self) -> str:
        """The consumer group that reads every topic the service consumes: one consumer per
        process, one join, one parked fetch and one heartbeat, however many topics
        (docs/performance.md section 19). The step runtime names its own (one per runner)."""
        return self.name

    def former_groups(self) -> dict[str, str]:
        """Topic -> the group that read it before `group` did (see `Consumes`)."""
        return {
            c.event.topic.name: c.former_group for c in self.consumes if c.event.topic is not None
        }


def kebab(name: str) -> str:
    """`ReplyGenerated` -> `reply-generated`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


# Until each service read all its topics through one consumer, the gateway read each of its
# five in a group of its own, `gateway.outbound.<event>` (every replica sharing it, so each
# event lands once in Redis).
OUTBOUND = "gateway.outbound"

SERVICES: tuple[Node, ...] = (
    Node(
        name="gateway",
        description="Gateway service: HTTP API plus the consumer that feeds each session's event stream.",
        consumes=tuple(
            Consumes(
                e, f"{OUTBOUND}.{kebab(e.__name__)}", turn_path=e in (ReplyGenerated, ReplyDelta)
            )
            for e in (
                ReplyGenerated,
                ReplyDelta,
                PlanCompiled,
                StepProgressed,
                WorkflowCompleted,
                WorkflowFailed,
            )
        ),
        produces=(Produces(TurnReceived, "A user message accepted by the gateway."),),
    ),
    Node(
        name="trimmer",
        description="Keeps the transcript and trims it to whole change units.",
        consumes=(
            Consumes(TurnReceived, "trimmer.turns", turn_path=True),
            Consumes(ReplyGenerated, "trimmer.replies"),
        ),
        produces=(Produces(ContextTrimmed, "The trimmed context of a turn."),),
    ),
    Node(
        name="indexer",
        description="Indexes the conversation into a Phase > Topic > Action outline, 4 turns at a time.",
        consumes=(Consumes(TurnReceived, "indexer.turns"),),
        uses_model=True,
    ),
    Node(
        name="annotator",
        description="The shadow annotator: accumulating notes per turn.",
        consumes=(
            Consumes(ContextTrimmed, "annotator.turns", turn_path=True),
            Consumes(ReplyClassified, "annotator.amends", turn_path=True),
            Consumes(RequirementsConfirmed, "annotator.confirmed"),
        ),
        produces=(Produces(NotesUpdated, "Notes after a turn."),),
        uses_model=True,
    ),
    Node(
        name="conversation",
        description="Talks to the user: questions and the confirmation summary.",
        consumes=(
            Consumes(NotesUpdated, "conversation.notes", turn_path=True),
            Consumes(ReplyClassified, "conversation.classified", turn_path=True),
        ),
        produces=(
            Produces(ReplyGenerated, "What planwire says to the user."),
            Produces(ReplyDelta, "A piece of a reply a model is still writing (streamed)."),
        ),
        uses_model=True,
    ),
    Node(
        name="classifier",
        description="Classifies replies to the confirmation summary.",
        consumes=(Consumes(ContextTrimmed, "classifier.turns", turn_path=True),),
        produces=(
            Produces(ReplyClassified, "Verdict on a confirmation reply."),
            Produces(RequirementsConfirmed, "The user confirmed."),
        ),
        uses_model=True,
    ),
    Node(
        name="planner",
        description="Compiles the whole plan once requirements are confirmed.",
        consumes=(Consumes(RequirementsConfirmed, "planner.confirmed"),),
        produces=(Produces(PlanCompiled, "The compiled plan of a session."),),
        uses_model=True,
    ),
    Node(
        name="dispatcher",
        description="Walks each compiled plan step by step; no model.",
        consumes=(
            Consumes(PlanCompiled, "dispatcher.plans"),
            Consumes(StepCompleted, "dispatcher.steps"),
        ),
        produces=(
            Produces(StepProgressed, "Progress of a plan's steps."),
            Produces(WorkflowCompleted, "A workflow was built."),
            Produces(WorkflowFailed, "A workflow could not be built."),
            Produces(RunStep, "A step for one runner, on that runner's command topic."),
        ),
    ),
    Node(
        name="specialist",
        # The runners are chosen at start-up; each reads its own `<runner>.run-step.v1` in group
        # `specialist.<runner>` (`--all`: one group `specialist.all-0` reads every runner).
        description="Runs plan steps for: {runners}.",
        title="planwire step runtime",
        consumes=(Consumes(RunStep, "specialist.<runner>"),),
        produces=(Produces(StepCompleted, "A step finished, ok or failed."),),
        uses_model=True,
    ),
)


def node(name: str) -> Node:
    """The declaration of one service."""
    return next(n for n in SERVICES if n.name == name)
