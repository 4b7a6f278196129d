"""The whole topology, declared once: every service, what it consumes and produces, its
consumer group, whether it calls a model.

Each service's `main.py` wires its broker from its entry here (`shared.service.Service.declared`);
`planwire up`, the deployment inventory (compose, Kubernetes, topics) and the AsyncAPI
generator read the same list. An event's topic is on the event class itself (`.topic`).
Adding an event: define it in `schemas/`, add it to `schemas.registry.CONTRACTS`, name it
here under its producer and consumers, regenerate (`planwire docs`, `python -m deploy.render`,
`python -m schemas.registry`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog import Catalogue, load_catalogue
from schemas.confirmation import ReplyClassified, RequirementsConfirmed
from schemas.envelope import Event
from schemas.plan import (
    FIXED_RUNNERS,
    PlanCompiled,
    RunStep,
    StepCompleted,
    StepProgressed,
    WorkflowCompleted,
    WorkflowFailed,
)
from schemas.topics import Topic, all_topics, run_step_topic
from schemas.turn import ContextTrimmed, NotesUpdated, ReplyDelta, ReplyGenerated, TurnReceived

# Step runners whose `<runner>.run-step.v1` topics the stack creates up front (the
# embedded broker cannot add partitions later, so topics must exist before first use).
RUNNERS: list[str] = [*load_catalogue().ids, *FIXED_RUNNERS]

# What a service's `Deps` field of one of these types gets (made once per process), beside
# what the service kit itself provides (Redis, broker, model port, publishers, settings).
PROVIDED: Mapping[type, Callable[[], Any]] = {Catalogue: load_catalogue}


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
    embedded_args: tuple[str, ...] = ()  # arguments under `planwire up` (one process per service)
    provides: Mapping[type, Callable[[], Any]] = field(
        default_factory=lambda: PROVIDED, hash=False, compare=False
    )

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
        embedded_args=("--all",),  # one process serves every runner; compose and k8s run one per id
    ),
)


def node(name: str) -> Node:
    """The declaration of one service."""
    return next(n for n in SERVICES if n.name == name)


@dataclass(frozen=True)
class ServiceSpec:
    """One service process: `python -m <module> *args`, with extra environment variables."""

    name: str
    module: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)


def embedded_services(settings: object = None) -> list[ServiceSpec]:
    """The services `planwire up` starts, in start order.

    `settings` (model settings) is accepted so entries can depend on it later. The lag
    exporter (`services/lag`, no events of its own) comes last; it watches the groups the
    broker knows, since the one `--all` specialist process uses groups of its own.
    """
    declared = [ServiceSpec(n.name, f"services.{n.name}.main", n.embedded_args) for n in SERVICES]
    return [*declared, LAG_EXPORTER]


def parse_replicas(text: str) -> dict[str, int]:
    """`annotator=4,specialist=2` -> {"annotator": 4, "specialist": 2}; a clear error for a
    service the topology does not declare or a count below 1."""
    known = [n.name for n in SERVICES]
    found: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, count = item.partition("=")
        name = name.strip()
        if name not in known:
            raise ValueError(f"--replicas: no service {name!r}; choose from {', '.join(known)}")
        try:
            found[name] = int(count) if sep else 0
        except ValueError:
            found[name] = 0
        if found[name] < 1:
            raise ValueError(f"--replicas: {item!r} needs a whole count of 1 or more")
    return found


def consumed_topics(name: str) -> list[str]:
    """The topics a service reads (a step runtime: every runner's command topic)."""
    topics = []
    for consumed in node(name).consumes:
        event = consumed.event
        if event.topic is not None:
            topics.append(event.topic.name)
        else:  # a command: one topic per runner
            topics += [run_step_topic(r).name for r in RUNNERS]
    return topics


def scaled_topics(topics: list[Topic], replicas: dict[str, int]) -> list[Topic]:
    """`topics` with at least as many partitions as replicas of any service reading them:
    a consumer group gives each partition to one member, so a replica past the partition
    count would sit idle."""
    needed: dict[str, int] = {}
    for name, count in replicas.items():
        for topic in consumed_topics(name):
            needed[topic] = max(needed.get(topic, 0), count)
    return [Topic(t.name, max(t.partitions, needed.get(t.name, 0))) for t in topics]


# Under `planwire up` every service is one process reading all its topics through one consumer
# (the `--all` step runtime every runner topic): partitions past one give it nothing (its lanes,
# not partitions, run sessions side by side), and the embedded broker looks at each partition of
# a parked fetch on every poll, busy or idle (docs/performance.md sections 18-19: the 44 runner
# topics' 176 partitions were about 1.2 points of a core of an idle stack). `--replicas` gives
# a replicated service's topics a partition per replica (`scaled_topics`). Deployed, every
# topic keeps its declared count, so each service's consumer group can scale.
EMBEDDED_PARTITIONS = 1


def embedded_topics(replicas: dict[str, int]) -> list[Topic]:
    """The topics `planwire up` creates: every topic with `EMBEDDED_PARTITIONS`, then as many
    partitions as `replicas` need (`scaled_topics`)."""
    topics = [Topic(t.name, EMBEDDED_PARTITIONS) for t in all_topics(RUNNERS)]
    return scaled_topics(topics, replicas)


def replicated(specs: list[ServiceSpec], replicas: dict[str, int]) -> list[ServiceSpec]:
    """Each service as many times as `replicas` asks: the first keeps its name, the others
    are `<name>-2`, `<name>-3`... (same module, arguments and consumer groups)."""
    out = []
    for spec in specs:
        out.append(spec)
        for k in range(2, replicas.get(spec.name, 1) + 1):
            out.append(ServiceSpec(f"{spec.name}-{k}", spec.module, spec.args, spec.env))
    return out


def replica_of(child_name: str, service: str) -> bool:
    """True when a process name is `service` or one of its replicas (`service-2`...)."""
    head, _, tail = child_name.rpartition("-")
    return child_name == service or (head == service and tail.isdigit())


# Not a node: it consumes no event, it reads every group's offsets (services/lag/main.py).
LAG_EXPORTER = ServiceSpec("lag", "services.lag.main", ("--discovered",))


def parse_services(text: str) -> list[ServiceSpec]:
    """Services from `name=module[,name=module...]`; a bare module is named by its package.

    Used by the hidden `planwire up --services` option (tests run fakes this way).
    """
    specs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, module = item.rpartition("=")
        specs.append(ServiceSpec(name or _default_name(module), module))
    return specs


def _default_name(module: str) -> str:
    """`services.gateway.main` -> `gateway`; `tests.support.fake_service` -> `fake_service`."""
    parts = module.split(".")
    return parts[-2] if parts[-1] == "main" and len(parts) > 1 else parts[-1]
