"""How `planwire up` runs the declared topology (`schemas/topology.py`) on one machine: the
processes it starts, the topics it creates first, and `--replicas` / `--services`.

Only the CLI needs these; the services wire themselves from the declaration and never import
this package (tests/unit/test_layers.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from catalog.runners import step_runners
from schemas.topics import Topic, all_topics, run_step_topic
from schemas.topology import SERVICES, node

# Step runners whose `<runner>.run-step.v1` topics the stack creates up front (the
# embedded broker cannot add partitions later, so topics must exist before first use).
RUNNERS: list[str] = step_runners()

# Arguments a service's process gets under `planwire up` (one process per service): one step
# runtime serves every runner, where compose and Kubernetes run one per id.
EMBEDDED_ARGS: dict[str, tuple[str, ...]] = {"specialist": ("--all",)}


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
    declared = [
        ServiceSpec(n.name, f"services.{n.name}.main", EMBEDDED_ARGS.get(n.name, ()))
        for n in SERVICES
    ]
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
