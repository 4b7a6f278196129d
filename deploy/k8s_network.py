"""NetworkPolicies: who may open a connection to a planwire pod (issue 32, item 7).

In the `planwire` namespace nothing enters a pod unless a policy below lets it:

- the gateway's API port (`http`), from anywhere: it is the only door (docs/security.md);
- every pod's `metrics` port, from Prometheus pods (any namespace; the Prometheus Operator
  labels them `app.kubernetes.io/name: prometheus`);
- Valkey (k8s/valkey, in this namespace), from the services' pods only.

Kafka runs where the cluster keeps it (Strimzi: its own namespace), and Strimzi writes its
listeners' policies itself: docs/security.md shows the `networkPolicyPeers` that let only
these pods in. Probes come from the kubelet on the node, which NetworkPolicies do not
filter on the common network plugins.
"""

from __future__ import annotations

from deploy.inventory import CORE_SERVICES
from deploy.k8s_pod import labels

PROMETHEUS = {"app.kubernetes.io/name": "prometheus"}
# The pods that read and write Redis: every service (the lag exporter and the topic Job
# talk to Kafka only).
REDIS_CLIENTS = sorted([*CORE_SERVICES, "specialist"])
REDIS_PORT = 6379


def policy(name: str, selector: dict, ingress: list[dict]) -> dict:
    """An ingress policy for the pods `selector` matches (no rules: nothing gets in)."""
    spec = {"podSelector": selector, "policyTypes": ["Ingress"]}
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "labels": labels(name, "network-policy")},
        "spec": spec | ({"ingress": ingress} if ingress else {}),
    }


def network_policies() -> list[dict]:
    """k8s/base's policies: deny by default, then the gateway's API and the scrape."""
    planwire = {"matchLabels": {"app.kubernetes.io/part-of": "planwire"}}
    gateway = {"matchLabels": {"app.kubernetes.io/name": "gateway"}}
    scrape = {"namespaceSelector": {}, "podSelector": {"matchLabels": PROMETHEUS}}
    return [
        policy("default-deny-ingress", {}, []),
        policy("gateway-api", gateway, [{"ports": [{"port": "http", "protocol": "TCP"}]}]),
        policy(
            "metrics-scrape",
            planwire,
            [{"from": [scrape], "ports": [{"port": "metrics", "protocol": "TCP"}]}],
        ),
    ]


def valkey_policy() -> dict:
    """k8s/valkey's policy: Redis connections from the services' pods, nobody else's."""
    clients = {
        "matchLabels": {"app.kubernetes.io/part-of": "planwire"},
        "matchExpressions": [
            {"key": "app.kubernetes.io/component", "operator": "In", "values": REDIS_CLIENTS}
        ],
    }
    rule = {"from": [{"podSelector": clients}], "ports": [{"port": REDIS_PORT, "protocol": "TCP"}]}
    return policy("valkey-clients", {"matchLabels": {"app.kubernetes.io/name": "valkey"}}, [rule])
