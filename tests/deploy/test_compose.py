"""docker-compose.yml: valid for Compose, complete, and wired the way the services expect."""

from __future__ import annotations

import json
import os
import re
import subprocess

import yaml

from catalog import load_catalogue
from schemas.plan import FIXED_RUNNERS
from schemas.topics import all_topics
from tests.deploy.tools import ROOT, require_tool, run

CORE = {
    "gateway",
    "trimmer",
    "indexer",
    "annotator",
    "conversation",
    "classifier",
    "planner",
    "dispatcher",
}
INFRA = {"kafka", "kafka-init", "valkey", "prometheus", "grafana"}
MODEL_USERS = {"indexer", "annotator", "conversation", "classifier", "planner"}


def compose() -> dict:
    """The file as Compose sees it (PyYAML resolves the `<<:` merge keys the same way)."""
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def expected_runners() -> list[str]:
    """Straight from the catalogue, not from deploy/inventory.py, so the test is independent."""
    return [*load_catalogue().ids, *FIXED_RUNNERS]


# What an operator sets in the shell or .env; Grafana's password has no default on purpose.
OPERATOR_ENV = {
    "GRAFANA_ADMIN_PASSWORD": "not-admin",
    "PLANWIRE_REDIS_PASSWORD": "valkey-" + "v" * 40,
    "PATH": os.environ.get("PATH", ""),
}


def rendered(env: dict[str, str]) -> subprocess.CompletedProcess:
    """`docker-compose config` with exactly these variables (not the caller's shell)."""
    binary = require_tool("docker-compose")
    return run([binary, "-f", "docker-compose.yml", "config"], env=env)


def test_docker_compose_accepts_the_file():
    result = rendered(OPERATOR_ENV)
    assert result.returncode == 0, result.stderr


def test_api_keys_reach_the_gateway_as_valid_json():
    """`${PLANWIRE_API_KEYS:-{}}` once rendered '{"k":"t"}}' and the gateway crash-looped."""
    keys = {"k-alpha": "alpha", "sha256:" + "ab" * 32: "beta"}
    result = rendered(OPERATOR_ENV | {"PLANWIRE_API_KEYS": json.dumps(keys)})
    assert result.returncode == 0, result.stderr
    env = yaml.safe_load(result.stdout)["services"]["gateway"]["environment"]
    assert json.loads(env["PLANWIRE_API_KEYS"]) == keys
    assert env["PLANWIRE_ALLOW_ANONYMOUS"] == "0"


def test_without_keys_the_gateway_gets_none_and_so_refuses_to_start():
    result = rendered(OPERATOR_ENV)
    env = yaml.safe_load(result.stdout)["services"]["gateway"]["environment"]
    assert env["PLANWIRE_API_KEYS"] == "" and env["PLANWIRE_ALLOW_ANONYMOUS"] == "0"
    assert env["PLANWIRE_HTTP_HOST"] == "0.0.0.0"  # so startup_refusal applies


def test_grafana_has_no_default_password_and_no_anonymous_access():
    result = rendered({k: v for k, v in OPERATOR_ENV.items() if k != "GRAFANA_ADMIN_PASSWORD"})
    assert result.returncode != 0 and "GRAFANA_ADMIN_PASSWORD" in result.stderr
    grafana = yaml.safe_load(rendered(OPERATOR_ENV).stdout)["services"]["grafana"]
    assert grafana["environment"]["GF_SECURITY_ADMIN_PASSWORD"] == "not-admin"
    assert grafana["environment"]["GF_AUTH_ANONYMOUS_ENABLED"] == "false"
    assert all(p.startswith("127.0.0.1:") for p in _ports(grafana))


def test_prometheus_admin_api_is_off_and_bound_to_loopback():
    prometheus = compose()["services"]["prometheus"]
    assert not any(
        "enable-lifecycle" in arg or "enable-admin-api" in arg for arg in prometheus["command"]
    )
    assert all(p.startswith("127.0.0.1:") for p in _ports(prometheus))


def test_only_the_api_port_is_published_never_the_metrics_port():
    """Metrics are unauthenticated: Prometheus reaches them inside the compose network."""
    services = compose()["services"]
    assert _ports(services["gateway"]) == ["${PLANWIRE_PUBLISH_ADDRESS:-127.0.0.1}:8000:8000"]
    published = [p for name in set(services) - INFRA for p in _ports(services[name])]
    assert not any("9464" in p for p in published)


def _published(env: dict[str, str]) -> list[tuple[str, str, str]]:
    """(host address, host port, container port) of every port Compose would publish."""
    result = rendered(env)
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    return [_port(p) for service in services.values() for p in service.get("ports", [])]


def _port(entry: str | dict) -> tuple[str, str, str]:
    """docker-compose 1.x prints `127.0.0.1:8000:8000/tcp`, Compose 2 a mapping."""
    if isinstance(entry, dict):
        return entry.get("host_ip", "0.0.0.0"), str(entry["published"]), str(entry["target"])
    parts = entry.split("/")[0].split(":")
    return (parts[0] if len(parts) == 3 else "0.0.0.0"), parts[-2], parts[-1]


def test_every_port_is_published_on_loopback_only_unless_the_operator_opens_the_api():
    """Published on all interfaces, 8000 was reachable from any network the host is on,
    past the host's firewall (Docker writes its own rules)."""
    published = _published(OPERATOR_ENV)
    assert ("127.0.0.1", "8000", "8000") in published
    assert all(address == "127.0.0.1" for address, _, _ in published), published
    opened = _published(OPERATOR_ENV | {"PLANWIRE_PUBLISH_ADDRESS": "0.0.0.0"})
    assert ("0.0.0.0", "8000", "8000") in opened
    others = [p for p in opened if p[1] != "8000"]
    assert others and all(address == "127.0.0.1" for address, _, _ in others), opened


def _ports(service: dict) -> list[str]:
    return [str(p) for p in service.get("ports", [])]


def test_docker_compose_config_really_validates(tmp_path):
    """Guard against a validator that accepts anything: a dangling depends_on must fail."""
    binary = require_tool("docker-compose")
    broken = tmp_path / "docker-compose.yml"
    broken.write_text("services:\n  a:\n    image: busybox:1.36\n    depends_on: [missing]\n")
    assert run([binary, "-f", str(broken), "config", "-q"], cwd=tmp_path).returncode != 0


def test_every_service_and_every_specialist_has_its_own_container():
    services = compose()["services"]
    specialists = {f"specialist-{r.replace('_', '-')}": r for r in expected_runners()}
    assert set(services) == CORE | INFRA | set(specialists) | {"lag"}
    for name in [*CORE, "lag"]:
        assert services[name]["command"] == [name]
    for name, runner in specialists.items():
        assert services[name]["command"] == ["specialist", runner]


def test_services_start_after_topics_exist_and_valkey_is_healthy():
    services = compose()["services"]
    for name in set(services) - INFRA:
        assert services[name]["depends_on"] == {
            "kafka-init": {"condition": "service_completed_successfully"},
            "valkey": {"condition": "service_healthy"},
        }, name
        assert "/ready" in " ".join(services[name]["healthcheck"]["test"]), name
    assert services["kafka-init"]["depends_on"] == {"kafka": {"condition": "service_healthy"}}
    for name in ("kafka", "valkey", "prometheus", "grafana"):
        assert services[name]["healthcheck"]["test"], name


def test_settings_come_from_environment_variables_only():
    services = compose()["services"]
    for name in set(services) - INFRA:
        env = services[name]["environment"]
        assert not {"env_file", "configs", "secrets"} & set(services[name]), name
        assert env["PLANWIRE_KAFKA_BOOTSTRAP"] == "kafka:9092" and env[
            "PLANWIRE_REDIS_URL"
        ].startswith("redis://valkey:")
        assert env["PLANWIRE_HTTP_HOST"] == "0.0.0.0" and env["PLANWIRE_HTTP_PORT"] == "8000"
        uses_model = name in MODEL_USERS or name.startswith("specialist-")
        assert ("PLANWIRE_MODEL_API_KEY" in env) == uses_model, name
    assert "PLANWIRE_API_KEYS" in services["gateway"]["environment"]


def test_kafka_runs_in_kraft_mode_and_valkey_with_aof():
    services = compose()["services"]
    kafka = services["kafka"]
    assert kafka["image"].startswith("apache/kafka:")
    assert kafka["environment"]["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert kafka["environment"]["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false"
    script = " ".join(services["valkey"]["command"])
    assert "valkey-server - --appendonly yes" in script
    assert any(v.endswith(":/data") for v in services["valkey"]["volumes"])


def test_kafka_init_creates_every_topic_with_its_partitions():
    listing = (ROOT / "deploy/kafka/topics.txt").read_text().splitlines()
    rows = [line.split() for line in listing if line and not line.startswith("#")]
    expected = [[t.name, str(t.partitions)] for t in all_topics(expected_runners())]
    assert rows == expected
    mounts = compose()["services"]["kafka-init"]["volumes"]
    assert "./deploy/kafka/topics.txt:/etc/planwire/topics.txt:ro" in mounts


def test_third_party_images_are_pinned():
    for name, service in compose()["services"].items():
        image = service["image"]
        if image.startswith("planwire:"):
            continue
        repo, _, tag = image.rpartition(":")
        assert repo and tag and tag != "latest", f"{name} uses an unpinned image {image}"


def test_prometheus_and_grafana_get_their_provisioned_files():
    services = compose()["services"]
    mounts = " ".join(services["prometheus"]["volumes"])
    assert (
        "./deploy/prometheus/prometheus.yml:" in mounts
        and "./deploy/prometheus/alerts.yml:" in mounts
    )
    mounts = " ".join(services["grafana"]["volumes"])
    assert "./deploy/grafana/provisioning:" in mounts and "./deploy/grafana/dashboards:" in mounts
    for mounted in (
        "deploy/prometheus/prometheus.yml",
        "deploy/prometheus/alerts.yml",
        "deploy/grafana/dashboards/planwire.json",
    ):
        assert (ROOT / mounted).is_file()


def test_prometheus_scrapes_every_replica_of_every_planwire_service():
    """DNS discovery of each compose service name: Compose answers with one A record per
    container, so `up --scale annotator=3` gives three targets, each its own `instance`."""
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    job = next(j for j in config["scrape_configs"] if j["job_name"] == "planwire")
    assert "static_configs" not in job, "static targets never see scaled replicas"
    (sd,) = job["dns_sd_configs"]
    assert sd["type"] == "A" and sd["port"] == 9464
    planwire = set(compose()["services"]) - INFRA
    for name in planwire:
        assert compose()["services"][name]["environment"]["PLANWIRE_METRICS_PORT"] == "9464"
    assert set(sd["names"]) == planwire
    # A fixed container name or host port would make `--scale` fail for that service.
    for name in planwire - {"gateway"}:
        assert not {"container_name", "ports"} & set(compose()["services"][name]), name


def relabel(job: dict, dns_name: str) -> dict[str, str]:
    """The target labels Prometheus derives from one discovered name (its relabel rules)."""
    labels = {"__meta_dns_name": dns_name}
    for rule in job["relabel_configs"]:
        value = ";".join(labels.get(s, "") for s in rule["source_labels"])
        match = re.fullmatch(rule.get("regex", "(.*)"), value)
        if match:
            groups = ("", *(g or "" for g in match.groups()))
            template = rule.get("replacement", "$1")
            labels[rule["target_label"]] = re.sub(
                r"\$(\d)", lambda m, groups=groups: groups[int(m.group(1))], template
            )
    return labels


def test_scraped_replicas_carry_the_component_and_workload_labels():
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    job = next(j for j in config["scrape_configs"] if j["job_name"] == "planwire")
    assert (
        relabel(job, "specialist-google-sheets").items()
        >= {
            "component": "specialist",
            "workload": "specialist-google-sheets",
        }.items()
    )
    assert relabel(job, "annotator")["component"] == "annotator"
    assert relabel(job, "lag")["workload"] == "lag"


def test_valkey_requires_a_password_that_every_service_has_and_no_command_line_shows():
    """Without one, anything on the compose network could read and write every session."""
    without = rendered({k: v for k, v in OPERATOR_ENV.items() if k != "PLANWIRE_REDIS_PASSWORD"})
    assert without.returncode != 0 and "PLANWIRE_REDIS_PASSWORD" in without.stderr
    password = OPERATOR_ENV["PLANWIRE_REDIS_PASSWORD"]
    services = yaml.safe_load(rendered(OPERATOR_ENV).stdout)["services"]
    valkey = services["valkey"]
    assert valkey["environment"]["REDISCLI_AUTH"] == password  # the health check's valkey-cli
    script = valkey["command"][-1]
    # Compose prints the shell's `$` escaped (`$$`) or not, depending on its version.
    assert password not in script and re.search(r"requirepass \$+REDISCLI_AUTH", script)
    for name in set(services) - INFRA:
        assert services[name]["environment"]["PLANWIRE_REDIS_PASSWORD"] == password, name


def test_the_gateway_believes_forwarded_headers_from_loopback_unless_told_whom():
    gateway = yaml.safe_load(rendered(OPERATOR_ENV).stdout)["services"]["gateway"]
    assert json.loads(gateway["environment"]["PLANWIRE_TRUSTED_PROXIES"]) == ["127.0.0.1", "::1"]
    chosen = OPERATOR_ENV | {"PLANWIRE_TRUSTED_PROXIES": '["172.18.0.1"]'}
    gateway = yaml.safe_load(rendered(chosen).stdout)["services"]["gateway"]
    assert json.loads(gateway["environment"]["PLANWIRE_TRUSTED_PROXIES"]) == ["172.18.0.1"]
