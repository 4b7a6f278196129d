"""Render the durable state for Kubernetes: Strimzi `KafkaTopic`s and a Valkey with AOF.

k8s/strimzi/  every topic of the topology as a Strimzi KafkaTopic: the declared
              partition count, three replicas, min.insync.replicas=2. Applied in the
              namespace the Strimzi Topic Operator watches (usually the Kafka cluster's):
              `kubectl apply -k k8s/strimzi -n kafka`.
k8s/valkey/   for clusters without a managed Redis: one Valkey with its append-only file
              on a persistent volume and `noeviction` (docs/reliability.md has the
              contract a managed Redis must meet instead).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from deploy.inventory import topics
from deploy.k8s_network import REDIS_PORT, valkey_policy
from deploy.k8s_pod import labels, redis_password_env

REPLICAS = 3
MIN_INSYNC_REPLICAS = 2
# The Strimzi `Kafka` resource the topics belong to (overlays may patch the label).
KAFKA_CLUSTER = "planwire"
VALKEY_IMAGE = "valkey/valkey:8.1"
VALKEY_FLAGS = "--appendonly yes --appendfsync everysec --maxmemory-policy noeviction --dir /data"
# The password (`requirepass`) reaches the server on stdin (`-`), never as an argument that
# `ps` on the node shows; the image's entrypoint then drops to the valkey user as usual.
# `$REDISCLI_AUTH` is the shell's (Kubernetes expands only `$(...)`); valkey-cli, the
# readiness probe, reads the same variable.
VALKEY_SCRIPT = f"""\
exec /usr/local/bin/docker-entrypoint.sh valkey-server - {VALKEY_FLAGS} <<EOF
requirepass $REDISCLI_AUTH
EOF
"""


def kafka_topics() -> list[dict]:
    """One KafkaTopic per topic; the resource name is the topic name (both DNS-safe)."""
    return [
        {
            "apiVersion": "kafka.strimzi.io/v1beta2",
            "kind": "KafkaTopic",
            "metadata": {
                "name": t.name,
                "labels": {"strimzi.io/cluster": KAFKA_CLUSTER, **labels(t.name, "kafka-topic")},
            },
            "spec": {
                "topicName": t.name,
                "partitions": t.partitions,
                "replicas": REPLICAS,
                "config": {"min.insync.replicas": MIN_INSYNC_REPLICAS},
            },
        }
        for t in topics()
    ]


def valkey_manifests() -> list[dict]:
    """A one-replica StatefulSet with a volume for the AOF, the `valkey` Service, and the
    NetworkPolicy that lets only the services connect (deploy/k8s_network.py)."""
    selector = {"app.kubernetes.io/name": "valkey"}
    box = {
        "name": "valkey",
        "image": VALKEY_IMAGE,
        "args": ["sh", "-c", VALKEY_SCRIPT],
        "env": [redis_password_env("REDISCLI_AUTH")],
        "ports": [{"name": "redis", "containerPort": REDIS_PORT}],
        "readinessProbe": {"exec": {"command": ["valkey-cli", "ping"]}, "periodSeconds": 5},
        "livenessProbe": {"tcpSocket": {"port": REDIS_PORT}, "periodSeconds": 10},
        "resources": {
            "requests": {"cpu": "100m", "memory": "256Mi"},
            "limits": {"memory": "1Gi"},
        },
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
    }
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}},
    }
    stateful = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "valkey", "labels": labels("valkey", "redis")},
        "spec": {
            "serviceName": "valkey",
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": labels("valkey", "redis")},
                "spec": {"containers": [box], "securityContext": {"fsGroup": 999}},
            },
            "volumeClaimTemplates": [claim],
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "valkey", "labels": labels("valkey", "redis")},
        "spec": {"selector": selector, "ports": [{"name": "redis", "port": REDIS_PORT}]},
    }
    return [stateful, service, valkey_policy()]


def kustomization(resources: list[str], namespace: str | None = None) -> dict:
    """A plain kustomization over the rendered files."""
    found = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
    return {**found, **({"namespace": namespace} if namespace else {}), "resources": resources}


def render_durable(dump: Callable[[list[dict]], str]) -> dict[Path, str]:
    """The files of k8s/strimzi and k8s/valkey, relative to the repo root."""
    return {
        Path("k8s/strimzi/topics.yaml"): dump(kafka_topics()),
        Path("k8s/strimzi/kustomization.yaml"): dump([kustomization(["topics.yaml"])]),
        Path("k8s/valkey/valkey.yaml"): dump(valkey_manifests()),
        Path("k8s/valkey/kustomization.yaml"): dump(
            [kustomization(["valkey.yaml"], namespace="planwire")]
        ),
    }
