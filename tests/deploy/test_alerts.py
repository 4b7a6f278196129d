"""Alert rules: promtool accepts them, their unit tests pass, and every alert is tested both ways."""

from __future__ import annotations

import yaml

from tests.deploy.tools import ROOT, require_tool, run

RULES = "deploy/prometheus/alerts.yml"
RULE_TESTS = "deploy/prometheus/alerts.test.yml"


def test_promtool_accepts_the_rules_and_the_scrape_config():
    promtool = require_tool("promtool")
    for argv in (
        ["check", "rules", RULES],
        ["check", "config", "deploy/prometheus/prometheus.yml"],
    ):
        result = run([promtool, *argv])
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_rule_unit_tests_pass():
    promtool = require_tool("promtool")
    result = run([promtool, "test", "rules", RULE_TESTS])
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_has_a_firing_and_a_quiet_case():
    alerts = {
        r["alert"]
        for g in yaml.safe_load((ROOT / RULES).read_text())["groups"]
        for r in g["rules"]
        if "alert" in r
    }
    cases = [
        c
        for t in yaml.safe_load((ROOT / RULE_TESTS).read_text())["tests"]
        for c in t.get("alert_rule_test", [])
    ]
    firing = {c["alertname"] for c in cases if c.get("exp_alerts")}
    quiet = {c["alertname"] for c in cases if not c.get("exp_alerts")}
    assert alerts - firing == set(), "alerts never tested firing"
    assert alerts - quiet == set(), "alerts never tested staying quiet"


def test_every_alert_says_what_to_do():
    for group in yaml.safe_load((ROOT / RULES).read_text())["groups"]:
        for rule in group["rules"]:
            if "alert" in rule:
                assert rule["labels"]["severity"] in {"info", "warning", "critical"}, rule["alert"]
                assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule[
                    "alert"
                ]
