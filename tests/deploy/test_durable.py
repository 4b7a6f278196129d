"""Durable state for Kubernetes: Strimzi topics with three replicas and a Valkey with AOF."""

from __future__ import annotations

import re

import kubernetes_validate
import yaml

from deploy.inventory import topics
from shared.settings import InfraSettings
from tests.deploy.test_k8s import (
    K8S_VERSION,
    ingress_rules,
    of_kind,
    pod_templates,
    selects,
    settings_map,
)
from tests.deploy.tools import ROOT

DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


def docs(path: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((ROOT / path).read_text()) if d]


def containers(overlay: str) -> dict[str, dict]:
    """The one container of every pod the overlay runs (Deployments and the topic Job)."""
    return {
        name: doc["spec"]["template"]["spec"]["containers"][0]
        for kind in ("Deployment", "Job")
        for name, doc in of_kind(kind, overlay).items()
    }


def test_every_topic_is_a_strimzi_topic_with_three_replicas_two_in_sync():
    rendered = {d["spec"]["topicName"]: d for d in docs("k8s/strimzi/topics.yaml")}
    assert {n: d["spec"]["partitions"] for n, d in rendered.items()} == {
        t.name: t.partitions for t in topics()
    }
    for name, doc in rendered.items():
        assert (doc["apiVersion"], doc["kind"]) == ("kafka.strimzi.io/v1beta2", "KafkaTopic")
        assert DNS_SUBDOMAIN.match(doc["metadata"]["name"]), name
        assert doc["metadata"]["labels"]["strimzi.io/cluster"]
        assert doc["spec"]["replicas"] == 3
        assert doc["spec"]["config"] == {"min.insync.replicas": 2}
    kustomization = docs("k8s/strimzi/kustomization.yaml")[0]
    assert kustomization["resources"] == ["topics.yaml"]


def test_the_valkey_manifest_is_valid_and_keeps_its_aof_on_a_volume_without_eviction():
    stateful, service, policy = docs("k8s/valkey/valkey.yaml")
    for doc in (stateful, service, policy):
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    shell, flag, script = stateful["spec"]["template"]["spec"]["containers"][0]["args"]
    assert (shell, flag) == ("sh", "-c")
    server = script.splitlines()[0].split("valkey-server - ", 1)[1].removesuffix(" <<EOF")
    flags = server.split()
    pairs = dict(zip(flags[::2], flags[1::2], strict=True))
    assert pairs["--appendonly"] == "yes" and pairs["--maxmemory-policy"] == "noeviction"
    mount = stateful["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]
    assert pairs["--dir"] == mount["mountPath"]
    assert stateful["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == mount["name"]
    # The services' default Redis URL names this Service.
    assert service["metadata"]["name"] == "valkey"
    assert "//valkey:6379" in (ROOT / "k8s/base/config.env").read_text()


def test_only_the_services_reach_valkey():
    stateful, _service, policy = docs("k8s/valkey/valkey.yaml")
    valkey = stateful["spec"]["template"]["metadata"]["labels"]
    (rule,) = ingress_rules(valkey, [policy])
    assert rule["ports"] == [{"port": 6379, "protocol": "TCP"}]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}  # this namespace only
    pods = pod_templates("k8s/base")
    reaching = {name for name, labels in pods.items() if selects(source["podSelector"], labels)}
    # Every service's pods; not the lag exporter nor the topic Job (they talk to Kafka only).
    assert reaching == {n for n in pods if not n.startswith(("lag", "kafka-topics"))}
    assert "gateway" in reaching and "specialist-gmail" in reaching


def test_services_default_to_durable_producers_and_replicated_topics(monkeypatch):
    for name in ("KAFKA_ACKS", "KAFKA_IDEMPOTENCE", "TOPIC_REPLICATION"):
        monkeypatch.delenv(f"PLANWIRE_{name}", raising=False)
    settings = InfraSettings()
    assert (settings.kafka_acks, settings.kafka_idempotence) == ("all", True)
    assert (settings.topic_replication, settings.topic_min_insync_replicas) == (3, 2)


def test_valkey_and_every_service_that_reaches_it_share_one_password_from_the_secret():
    """Valkey without a password let any pod that got past the policy read every session."""
    stateful, _service, _policy = docs("k8s/valkey/valkey.yaml")
    box = stateful["spec"]["template"]["spec"]["containers"][0]
    script = box["args"][2]
    assert "requirepass $REDISCLI_AUTH" in script and "--requirepass" not in script
    server = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in box["env"]}
    expected = {"name": "planwire-secrets", "key": "redis-password", "optional": False}
    assert server == {"REDISCLI_AUTH": expected}  # valkey-cli of the probe reads it too
    for name, container in containers("k8s/base").items():
        refs = {
            e["name"]: e["valueFrom"]["secretKeyRef"]
            for e in container.get("env", [])
            if "valueFrom" in e
        }
        reaches_valkey = not name.startswith(("lag", "kafka-topics"))
        assert (refs.get("PLANWIRE_REDIS_PASSWORD") == expected) == reaches_valkey, name


def test_kafka_sasl_and_tls_are_an_option_every_kafka_client_reads_the_same_way():
    """Plaintext unless an overlay says otherwise; the login, when one is needed, comes from
    the Secret to every pod that talks to Kafka, the topic Job and the lag exporter too."""
    _name, config = settings_map()
    assert config["PLANWIRE_KAFKA_SECURITY_PROTOCOL"] == "PLAINTEXT"
    assert config["PLANWIRE_KAFKA_SASL_MECHANISM"] == "SCRAM-SHA-512"
    login = {
        "PLANWIRE_KAFKA_SASL_USERNAME": "kafka-sasl-username",
        "PLANWIRE_KAFKA_SASL_PASSWORD": "kafka-sasl-password",
    }
    found = containers("k8s/base")
    assert (
        "gateway" in found and "lag" in found and any(n.startswith("kafka-topics") for n in found)
    )
    for name, container in found.items():
        refs = {
            e["name"]: e["valueFrom"]["secretKeyRef"]
            for e in container.get("env", [])
            if "valueFrom" in e
        }
        for variable, key in login.items():
            expected = {"name": "planwire-secrets", "key": key, "optional": True}
            assert refs.get(variable) == expected, (name, variable)
