"""The pod shape every planwire workload shares: labels, container, probes, security.

Split from deploy/k8s.py so the one place that decides how a planwire pod runs is short.
"""

from __future__ import annotations

from deploy.inventory import HTTP_PORT, METRICS_PORT, Workload

UID = 10001  # the image's non-root user (Dockerfile)

# Memory measured: a service imports to ~70 MB RSS and runs at ~100 MB; the limit leaves
# room for large messages and model responses. CPU limits stop one runaway pod from
# starving its node; requests are what the HPA's utilisation is measured against.
RESOURCES = {
    "gateway": {
        "requests": {"cpu": "100m", "memory": "160Mi"},
        "limits": {"cpu": "1", "memory": "384Mi"},
    },
    "specialist": {
        "requests": {"cpu": "25m", "memory": "112Mi"},
        "limits": {"cpu": "500m", "memory": "256Mi"},
    },
    "kafka-topics": {
        "requests": {"cpu": "50m", "memory": "96Mi"},
        "limits": {"cpu": "500m", "memory": "192Mi"},
    },
}
DEFAULT_RESOURCES = {
    "requests": {"cpu": "50m", "memory": "128Mi"},
    "limits": {"cpu": "500m", "memory": "320Mi"},
}


def labels(name: str, component: str, **extra: str) -> dict:
    """The recommended labels; the PodMonitor selects on part-of, dashboards on component."""
    return {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/part-of": "planwire",
        **extra,
    }


def container(w: Workload, image: str, *, probes: bool = True) -> dict:
    """`planwire run <args>` with the shared config, its secrets, probes and a locked-down root."""
    box = {
        "name": w.component,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "args": list(w.args),
        "ports": [
            {"name": "http", "containerPort": HTTP_PORT, "protocol": "TCP"},
            {"name": "metrics", "containerPort": METRICS_PORT, "protocol": "TCP"},
        ],
        "envFrom": [{"configMapRef": {"name": "planwire-config"}}],
        "resources": RESOURCES.get(w.component, DEFAULT_RESOURCES),
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        # The only writable path: Python and libraries may want a temp dir.
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
    }
    if secrets := _secret_env(w):
        box["env"] = secrets
    if probes:
        box |= _probes()
    return box


# Workloads that talk to Kafka only (deploy/k8s_network.py keeps them away from Valkey).
KAFKA_ONLY = frozenset({"lag", "kafka-topics"})


def _secret_env(w: Workload) -> list[dict]:
    """Secrets from `planwire-secrets` (see k8s/base/secret.example.yaml)."""
    env = [
        # Optional: only a Kafka with SASL listeners (PLANWIRE_KAFKA_SECURITY_PROTOCOL) asks.
        _secret("PLANWIRE_KAFKA_SASL_USERNAME", "kafka-sasl-username", optional=True),
        _secret("PLANWIRE_KAFKA_SASL_PASSWORD", "kafka-sasl-password", optional=True),
    ]
    if w.component not in KAFKA_ONLY:
        env.append(redis_password_env("PLANWIRE_REDIS_PASSWORD"))
    if w.uses_model:
        # Optional: the heuristic backend needs no key.
        env.append(_secret("PLANWIRE_MODEL_API_KEY", "model-api-key", optional=True))
    if w.component == "gateway":
        # Required: without it the gateway would start with open access.
        env.append(_secret("PLANWIRE_API_KEYS", "api-keys", optional=False))
        # Required: it runs several replicas, and without one shared secret a cookie signed
        # by one replica is a 401 on the next.
        env.append(_secret("PLANWIRE_AUTH_SECRET", "auth-secret", optional=False))
    return env


def redis_password_env(var: str) -> dict:
    """Valkey's password, required: Valkey (k8s/valkey) and every client read the same key,
    and a pod without it would not get in."""
    return _secret(var, "redis-password", optional=False)


def _secret(var: str, key: str, *, optional: bool) -> dict:
    return {
        "name": var,
        "valueFrom": {
            "secretKeyRef": {"name": "planwire-secrets", "key": key, "optional": optional}
        },
    }


def _probes() -> dict:
    """Liveness on /health (the process answers), readiness on /ready (broker and Redis answer).

    A broker or Redis outage takes pods out of rotation (readiness) and never restarts them
    (liveness asks only whether the process answers, so a restart could not help); the
    startup probe gives the first start a minute before liveness counts.
    """
    alive = {"httpGet": {"path": "/health", "port": "http"}, "timeoutSeconds": 6}
    ready = {"httpGet": {"path": "/ready", "port": "http"}, "timeoutSeconds": 6}
    return {
        "startupProbe": alive | {"periodSeconds": 5, "failureThreshold": 12},
        "readinessProbe": ready | {"periodSeconds": 10, "failureThreshold": 3},
        "livenessProbe": alive | {"periodSeconds": 20, "failureThreshold": 6},
    }


def pod_spec(containers: list[dict], *, restart: str = "Always") -> dict:
    """Non-root, no service-account token (nothing here talks to the API server)."""
    return {
        "automountServiceAccountToken": False,
        "restartPolicy": restart,
        "terminationGracePeriodSeconds": 30,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": UID,
            "runAsGroup": UID,
            "fsGroup": UID,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": containers,
        "volumes": [{"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}],
    }
