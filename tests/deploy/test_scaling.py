"""KEDA ScaledObjects: valid against KEDA's CRD schema, one per workload, lag-driven.

kubernetes-validate has no schema for KEDA's custom resources. `cloudcoil-models-keda`
(PyPI) ships pydantic models generated from KEDA's CRDs (v2.16): a manifest is valid when it
parses and re-serialises to itself. Pydantic would silently drop an unknown field, so the
round trip is what catches a misspelled one (see the guard test).
"""

from __future__ import annotations

import pytest
from cloudcoil.models.keda.v1alpha1 import ScaledObject
from pydantic import ValidationError

from catalog import load_catalogue
from deploy.inventory import workloads
from deploy.k8s_scaling import GATEWAY_MAX
from schemas.topics import all_topics
from services.specialist.runners import ALL, select_runners
from shared.settings import InfraSettings
from tests.deploy.test_k8s import of_kind, rendered

# The Kafka scaler's parameters (keda.sh/docs/2.16/scalers/apache-kafka) that we use or may:
# a misspelled key is ignored by KEDA, so it is checked here.
KAFKA_KEYS = {
    "bootstrapServers",
    "bootstrapServersFromEnv",
    "consumerGroup",
    "topic",
    "lagThreshold",
    "activationLagThreshold",
    "offsetResetPolicy",
    "allowIdleConsumers",
    "excludePersistentLag",
    "scaleToZeroOnInvalidOffset",
    "limitToPartitionsWithLag",
}


def keda_errors(doc: dict) -> list[str]:
    """What KEDA's schema rejects in `doc`, unknown fields included."""
    try:
        parsed = ScaledObject.model_validate(doc)
    except ValidationError as exc:
        return [str(exc).splitlines()[0]]
    again = parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
    return [] if again == doc else [f"fields KEDA does not know: {_diff(doc, again)}"]


def _diff(original: dict, parsed: dict, path: str = "") -> list[str]:
    if isinstance(original, dict) and isinstance(parsed, dict):
        return [
            d
            for key in original
            for d in (
                [f"{path}.{key}"]
                if key not in parsed
                else _diff(original[key], parsed[key], f"{path}.{key}")
            )
        ]
    if isinstance(original, list) and isinstance(parsed, list):
        return [
            d
            for i, (a, b) in enumerate(zip(original, parsed, strict=True))
            for d in _diff(a, b, f"{path}[{i}]")
        ]
    return [] if original == parsed else [path]


@pytest.mark.parametrize("overlay", ["k8s/base", "k8s/overlays/production"])
def test_every_scaled_object_is_valid_for_keda(overlay):
    errors = [
        f"{d['metadata']['name']}: {e}"
        for d in rendered(overlay)
        if d["kind"] == "ScaledObject"
        for e in keda_errors(d)
    ]
    assert not errors, "\n".join(errors)


def test_the_keda_check_rejects_a_misspelled_field():
    (doc,) = [d for d in rendered() if d["kind"] == "ScaledObject"][:1]
    typo = {**doc, "spec": {**doc["spec"], "minReplicas": 1}}
    assert keda_errors(typo) and not keda_errors(doc)
    wrong_type = {**doc, "spec": {**doc["spec"], "maxReplicaCount": "many"}}
    assert keda_errors(wrong_type)


def test_one_scaled_object_per_workload_and_no_cpu_hpa_beside_it():
    scalers = of_kind("ScaledObject")
    assert set(scalers) == {w.name for w in workloads()} == set(of_kind("Deployment")) - {"lag"}
    # Two autoscalers on one Deployment fight: KEDA creates the only HPA.
    assert of_kind("HorizontalPodAutoscaler") == {}


def _runners() -> list[str]:
    return select_runners([ALL], load_catalogue().ids)


def test_every_consumer_group_of_every_workload_has_a_lag_trigger():
    """Checked against the services' real groups: the specialist runtime names its own."""
    scalers = of_kind("ScaledObject")
    partitions = {t.name: t.partitions for t in all_topics(_runners())}
    for runner in _runners():
        (trigger,) = scalers[f"specialist-{runner.replace('_', '-')}"]["spec"]["triggers"]
        assert trigger["type"] == "kafka"
        assert trigger["metadata"]["consumerGroup"] == f"specialist.{runner}"
        assert trigger["metadata"]["topic"] == f"{runner.replace('_', '-')}.run-step.v1"
    trimmer = {
        (t["metadata"]["consumerGroup"], t["metadata"]["topic"])
        for t in scalers["trimmer"]["spec"]["triggers"]
    }
    from services.trimmer.main import service

    (consumer,) = service.broker.subscribers  # one consumer reads both of its topics
    assert trimmer == {
        (consumer.group_id, "gateway.turn-received.v1"),
        (consumer.group_id, "conversation.reply-generated.v1"),
    }
    for name, scaler in scalers.items():
        for trigger in scaler["spec"]["triggers"]:
            if trigger["type"] == "kafka":
                meta = trigger["metadata"]
                assert set(meta) <= KAFKA_KEYS, (name, set(meta) - KAFKA_KEYS)
                assert meta["topic"] in partitions, (name, meta["topic"])
                assert meta["offsetResetPolicy"] == "earliest"  # as the services consume
                assert meta["bootstrapServersFromEnv"] == "PLANWIRE_KAFKA_BOOTSTRAP"


def test_replica_bounds_follow_partition_counts():
    partitions = {t.name: t.partitions for t in all_topics(_runners())}
    for name, scaler in of_kind("ScaledObject").items():
        spec = scaler["spec"]
        topics = [t["metadata"]["topic"] for t in spec["triggers"] if t["type"] == "kafka"]
        most = max(partitions[t] for t in topics)
        if name == "gateway":
            assert spec["maxReplicaCount"] == max(GATEWAY_MAX, most)
        else:
            # Each subscriber reads one topic: more replicas than its partitions would idle.
            assert spec["maxReplicaCount"] == most, name


def test_specialists_scale_to_zero_and_the_turn_path_never_does():
    for name, scaler in of_kind("ScaledObject").items():
        spec = scaler["spec"]
        if name.startswith("specialist-"):
            assert spec["minReplicaCount"] == 0, name
            assert all(t["metadata"]["activationLagThreshold"] == "0" for t in spec["triggers"])
        else:
            assert spec["minReplicaCount"] >= 1, name


def test_only_the_gateway_scales_on_cpu():
    for name, scaler in of_kind("ScaledObject").items():
        kinds = {t["type"] for t in scaler["spec"]["triggers"]}
        assert kinds == ({"kafka", "cpu"} if name == "gateway" else {"kafka"}), name


def test_a_replica_running_its_full_lanes_does_not_ask_for_another():
    """A model-calling consumer runs LANES sessions at once and its committed offset stays
    behind the oldest (shared/lanes.py): that much lag is work in progress, not a queue."""
    lanes = InfraSettings().key_concurrency
    by_name = {w.name: w for w in workloads()}
    for name, scaler in of_kind("ScaledObject").items():
        thresholds = {
            int(t["metadata"]["lagThreshold"])
            for t in scaler["spec"]["triggers"]
            if t["type"] == "kafka"
        }
        (threshold,) = thresholds
        if by_name[name].uses_model:
            assert threshold > lanes, name
        else:
            assert threshold == 2, name  # one running, one waiting: a user waits on it
