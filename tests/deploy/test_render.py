"""The rendered deployment files are what `python -m deploy.render` produces from today's code."""

from __future__ import annotations

import importlib

import pytest

from deploy import inventory, render
from shared.model import ModelSettings
from tests.deploy.tools import ROOT


def test_committed_files_match_a_fresh_render():
    drifted = render.stale(ROOT)
    assert not drifted, (
        f"stale generated files (run `python -m deploy.render`): {[str(p) for p in drifted]}"
    )


def test_render_is_deterministic():
    assert render.render(ROOT) == render.render(ROOT)


def test_a_leftover_file_counts_as_stale(tmp_path):
    """A runner removed from the catalogue must not leave its manifests behind."""
    for path, text in render.render(ROOT).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "deploy/prometheus/alerts.yml").write_text(
        (ROOT / "deploy/prometheus/alerts.yml").read_text()
    )
    (tmp_path / "k8s/base/specialists/retired.yaml").write_text("{}\n")
    assert render.stale(tmp_path) == [render.Path("k8s/base/specialists/retired.yaml")]
    render.write(tmp_path)
    assert (
        render.stale(tmp_path) == []
        and not (tmp_path / "k8s/base/specialists/retired.yaml").exists()
    )


@pytest.mark.parametrize("service", inventory.CORE_SERVICES)
def test_model_settings_go_exactly_to_the_services_that_read_them(service):
    settings_class = type(importlib.import_module(f"services.{service}.main").service.settings)
    assert issubclass(settings_class, ModelSettings) == (service in inventory.MODEL_SERVICES)


def test_every_step_runner_gets_a_workload_and_a_topic():
    names = {w.name for w in inventory.workloads()}
    topics = {t.name for t in inventory.topics()}
    for runner in inventory.runners():
        assert f"specialist-{inventory.dns_name(runner)}" in names
        assert f"{inventory.dns_name(runner)}.run-step.v1" in topics
