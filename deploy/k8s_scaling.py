"""How each workload scales: a KEDA ScaledObject per workload, rendered from the topology.

A consumer's work is its consumer group's lag (messages published and not yet processed),
not its CPU: a specialist waiting on a model stays near idle CPU while its topic backs up.
So every workload scales on the lag of each group it consumes in (one Kafka trigger per
group and topic), read by KEDA from the same brokers the pods use (`bootstrapServersFromEnv`).

Numbers come from the topology's partition counts:
- max replicas = the most partitions of any topic it reads: a consumer beyond that owns
  no partition of it and idles.
- lag threshold = messages one replica works on at once plus those it may have waiting
  before another is added: with P partitions, KEDA asks for all P replicas when every
  partition holds that backlog (desired = ceil(total lag / threshold), capped at the
  partition count). A service that calls a model runs `PLANWIRE_KEY_CONCURRENCY` (8)
  sessions at once in each consumer (shared/lanes.py), and the committed offset stays
  behind the oldest of them, so those count in its lag without waiting; a model-free one
  runs one message at a time.
Specialists scale to zero (a plan's first step to a cold runner waits for one pod start,
seconds against the minutes a plan takes); the turn path keeps a replica (a user waits on
every hop). The gateway serves HTTP as well, so CPU is a real signal there and it keeps a
CPU trigger beside its lag trigger.
"""

from __future__ import annotations

from deploy.inventory import Workload
from shared.settings import InfraSettings

KEDA_API = "keda.sh/v1alpha1"
# A user is waiting on every message of the turn path: add a replica once one waits.
TURN_PATH_WAITING = 1
# A step runs seconds on a model; a few queued are normal.
STEP_WAITING = 2
# What a model-calling consumer runs at once by default (the rendered manifests' value).
LANES = InfraSettings.model_fields["key_concurrency"].default
# The gateway's HTTP side scales past the outbound topic's partitions (overlay: 10).
GATEWAY_MAX = 6
GATEWAY_CPU_UTILIZATION = "70"
POLL_S = 15
SPECIALIST_COOLDOWN_S = 300  # idle this long before a specialist goes to zero
# Every scale change rebalances the group, so scale down slowly.
SCALE_DOWN_WINDOW_S = 300


def max_replicas(w: Workload) -> int:
    """Useful consumers: the most partitions of any one topic it reads.

    Each subscriber is its own consumer of one topic, so a topic's partitions are shared
    among the replicas and no more of them than it has partitions can work on it.
    """
    most = max(t.partitions for topics in w.groups.values() for t in topics)
    return max(GATEWAY_MAX, most) if w.component == "gateway" else most


def min_replicas(w: Workload) -> int:
    """Zero for step runners (woken by their first message), one on the turn path."""
    return 0 if w.runner else 1


def lag_threshold(w: Workload) -> int:
    """Messages one replica runs at once, plus those it may have waiting."""
    running = LANES if w.uses_model else 1
    return running + (STEP_WAITING if w.runner else TURN_PATH_WAITING)


def kafka_triggers(w: Workload) -> list[dict]:
    """One lag trigger per (group, topic): KEDA reads one topic's lag per trigger."""
    return [
        {
            "type": "kafka",
            "name": f"lag-{topic.name}"[:63].rstrip("-.").replace(".", "-"),
            "metadata": {
                "bootstrapServersFromEnv": "PLANWIRE_KAFKA_BOOTSTRAP",
                "consumerGroup": group,
                "topic": topic.name,
                "lagThreshold": str(lag_threshold(w)),
                # Any waiting message wakes a runner scaled to zero.
                "activationLagThreshold": "0",
                # The services start a new group at the earliest offset: count all of it.
                "offsetResetPolicy": "earliest",
                "allowIdleConsumers": "false",
            },
        }
        for group, topics in w.groups.items()
        for topic in topics
    ]


def cpu_trigger() -> dict:
    return {
        "type": "cpu",
        "metricType": "Utilization",
        "metadata": {"value": GATEWAY_CPU_UTILIZATION},
    }


def scaled_object(w: Workload, meta: dict) -> dict:
    """The ScaledObject of one workload (KEDA creates and owns its HPA)."""
    triggers = kafka_triggers(w) + ([cpu_trigger()] if w.component == "gateway" else [])
    behavior = {"scaleDown": {"stabilizationWindowSeconds": SCALE_DOWN_WINDOW_S}}
    spec = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": w.name},
        "pollingInterval": POLL_S,
        "minReplicaCount": min_replicas(w),
        "maxReplicaCount": max_replicas(w),
        "advanced": {"horizontalPodAutoscalerConfig": {"behavior": behavior}},
        "triggers": triggers,
    }
    if w.runner:
        spec["cooldownPeriod"] = SPECIALIST_COOLDOWN_S
    return {"apiVersion": KEDA_API, "kind": "ScaledObject", "metadata": meta, "spec": spec}
