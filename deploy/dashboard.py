"""Render the Grafana dashboard deploy/grafana/dashboards/planwire.json from a panel list.

Built in code rather than exported from the Grafana UI so every query is reviewable here and
tests/deploy/test_dashboard.py can check each metric name against what the code exports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from deploy.metrics_source import is_defined

RATE = "$__rate_interval"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


@dataclass(frozen=True)
class Panel:
    """One time series panel: a title, (expr, legend) pairs and a unit."""

    title: str
    queries: tuple[tuple[str, str], ...]
    unit: str = "short"
    description: str = ""


def p95(bucket: str, by: str, selector: str = "") -> str:
    """95th percentile of a histogram, per `by` labels."""
    return f"histogram_quantile(0.95, sum by (le, {by}) (rate({bucket}_bucket{selector}[{RATE}])))"


def rate(metric: str, by: str, selector: str = "") -> str:
    """Per-second rate summed per `by` labels."""
    return f"sum by ({by}) (rate({metric}{selector}[{RATE}]))"


def traffic() -> list[Panel]:
    return [
        Panel(
            "Turns accepted and sessions started /s",
            (
                (f"sum(rate(planwire_turns_total[{RATE}]))", "turns"),
                (f"sum(rate(planwire_sessions_created_total[{RATE}]))", "sessions started"),
            ),
            "ops",
        ),
        Panel(
            "Events handled /s",
            ((rate("planwire_events_handled_total", "service, event"), "{{service}} {{event}}"),),
            "ops",
        ),
        Panel(
            "Kafka messages consumed /s",
            (
                (
                    rate("faststream_received_messages_total", "app_name, handler"),
                    "{{app_name}} <- {{handler}}",
                ),
            ),
            "ops",
        ),
        Panel(
            "Kafka messages published /s",
            (
                (
                    rate("faststream_published_messages_total", "app_name, destination"),
                    "{{app_name}} -> {{destination}}",
                ),
            ),
            "ops",
        ),
    ]


def lag() -> list[Panel]:
    """Backlog per consumer group (services/lag) and who owns the partitions."""
    return [
        Panel(
            "Consumer lag per group and topic",
            (("sum by (group, topic) (planwire_consumer_lag)", "{{group}} {{topic}}"),),
            "short",
            "Messages published and not yet processed. Growing lag that never returns to zero "
            "fires PlanwireConsumerGroupBehind; KEDA scales each workload on it.",
        ),
        Panel(
            "Consumer lag per service",
            (
                (
                    'sum by (component) (label_replace(planwire_consumer_lag, "component", '
                    '"$1", "group", "([^.]+).*"))',
                    "{{component}}",
                ),
            ),
        ),
        Panel(
            "Partitions owned per workload and group",
            (
                (
                    "sum by (workload, group) (planwire_assigned_partitions)",
                    "{{workload}} {{group}}",
                ),
            ),
            "short",
            "Replicas beyond a topic's partition count own nothing and idle.",
        ),
        Panel(
            "Messages in lanes per workload and topic",
            (
                (
                    "sum by (workload, topic) (planwire_lane_messages)",
                    "{{workload}} {{topic}}",
                ),
            ),
            "short",
            "Messages a model-calling consumer has taken and not settled: running, or waiting "
            "behind their session's previous one. A consumer runs up to PLANWIRE_KEY_CONCURRENCY "
            "(8) at once; held at that, its sessions queue and its lag grows.",
        ),
    ]


def latency() -> list[Panel]:
    return [
        Panel(
            "Turn latency p50 / p95 (message accepted to reply streamed)",
            (
                (
                    "histogram_quantile(0.5, sum by (le) (rate(planwire_turn_seconds_bucket[$__rate_interval])))",
                    "p50",
                ),
                (
                    "histogram_quantile(0.95, sum by (le) (rate(planwire_turn_seconds_bucket[$__rate_interval])))",
                    "p95",
                ),
            ),
            "s",
            "End to end through every service, timed by the gateway. PlanwireTurnLatencyHigh fires when p95 stays over 20 s.",
        ),
        Panel(
            "Time to saved workflow p50 / p95 (confirmation to workflow)",
            (
                (
                    "histogram_quantile(0.5, sum by (le) (rate(planwire_workflow_seconds_bucket[$__rate_interval])))",
                    "p50",
                ),
                (
                    "histogram_quantile(0.95, sum by (le) (rate(planwire_workflow_seconds_bucket[$__rate_interval])))",
                    "p95",
                ),
            ),
            "s",
        ),
        Panel(
            "Handler p95 per service and event",
            ((p95("planwire_handler_seconds", "service, event"), "{{service}} {{event}}"),),
            "s",
        ),
        Panel(
            "Handler p95 per service and topic",
            (
                (
                    p95(
                        "faststream_received_processed_messages_duration_seconds",
                        "app_name, handler",
                    ),
                    "{{app_name}} {{handler}}",
                ),
            ),
            "s",
        ),
        Panel(
            "Model latency p95 per role",
            ((p95("planwire_model_latency_seconds", "role"), "{{role}}"),),
            "s",
        ),
        step_duration(),
    ]


def step_duration() -> Panel:
    """The dispatcher's request-to-completion time; until it exists, the runner's own time."""
    if is_defined("planwire_dispatch_step_seconds"):
        return Panel(
            "Dispatch step duration p95 per runner",
            ((p95("planwire_dispatch_step_seconds", "runner"), "{{runner}}"),),
            "s",
        )
    query = p95(
        "faststream_received_processed_messages_duration_seconds",
        "handler",
        '{app_name="specialist"}',
    )
    return Panel(
        "Step run time p95 per runner topic",
        ((query, "{{handler}}"),),
        "s",
        "Time a specialist spends on one step.",
    )


def model_health() -> list[Panel]:
    calls = 'planwire_model_calls_total{outcome!="heuristic"}'
    return [
        Panel(
            "Model calls by outcome /s",
            ((rate("planwire_model_calls_total", "role, outcome"), "{{role}} {{outcome}}"),),
            "ops",
        ),
        Panel(
            "Model fallback rate",
            (
                (
                    f"sum by (role) (rate(planwire_model_fallbacks_total[{RATE}])) / sum by (role) (rate({calls}[{RATE}]))",
                    "{{role}}",
                ),
            ),
            "percentunit",
            "Share of language-model calls that gave up and used the rules.",
        ),
        Panel(
            "Model tokens /s",
            ((rate("planwire_model_tokens_total", "role, kind"), "{{role}} {{kind}}"),),
            "short",
        ),
        Panel(
            "Model attempt failures, retries and repairs /s",
            (
                (
                    rate("planwire_model_attempt_failures_total", "role, reason"),
                    "{{role}} failed: {{reason}}",
                ),
                (rate("planwire_model_retries_total", "role"), "{{role}} retry"),
                (
                    rate("planwire_model_repairs_total", "role, result"),
                    "{{role}} repair {{result}}",
                ),
            ),
            "ops",
        ),
    ]


def corrections() -> list[Panel]:
    return [
        Panel(
            "Code overrides of the model /s",
            ((rate("planwire_overrides_total", "service, rule"), "{{service}} {{rule}}"),),
            "ops",
        ),
        Panel(
            "Plan repairs /s", ((rate("planwire_plan_repairs_total", "rule"), "{{rule}}"),), "ops"
        ),
        Panel(
            "Outline batches indexed /s, by who placed them",
            ((rate("planwire_indexed_batches_total", "decided_by"), "{{decided_by}}"),),
            "ops",
        ),
        Panel(
            "Model fallbacks /s",
            ((rate("planwire_model_fallbacks_total", "role"), "{{role}}"),),
            "ops",
        ),
    ]


def dispatch() -> list[Panel]:
    return [
        steps_by_status(),
        Panel(
            "Sessions by phase",
            (("max by (phase) (planwire_sessions_by_phase)", "{{phase}}"),),
            "short",
        ),
        Panel(
            "Step re-requests and finished runs /s",
            (
                (
                    rate("planwire_step_retries_total", "runner, cause"),
                    "re-request {{runner}} ({{cause}})",
                ),
                (rate("planwire_runs_finished_total", "outcome"), "run {{outcome}}"),
            ),
            "ops",
        ),
    ]


def steps_by_status() -> Panel:
    """The dispatcher's view of steps; until it exists, the runners' own outcomes."""
    if is_defined("planwire_steps_total"):
        return Panel(
            "Steps by status /s",
            ((rate("planwire_steps_total", "runner, status"), "{{runner}} {{status}}"),),
            "ops",
        )
    return Panel(
        "Steps run by outcome /s",
        ((rate("planwire_steps_run_total", "runner, outcome"), "{{runner}} {{outcome}}"),),
        "ops",
    )


def reliability() -> list[Panel]:
    return [
        Panel(
            "Dead-lettered messages /s",
            ((rate("planwire_dlq_messages_total", "topic, reason"), "{{topic}} ({{reason}})"),),
            "ops",
        ),
        Panel(
            "Handler retries and skipped duplicates /s",
            (
                (rate("planwire_handler_retries_total", "topic"), "retry {{topic}}"),
                (rate("planwire_duplicate_messages_total", "topic"), "duplicate {{topic}}"),
            ),
            "ops",
        ),
        Panel(
            "Handler exceptions /s",
            (
                (
                    rate(
                        "faststream_received_processed_messages_exceptions_total",
                        "app_name, exception_type",
                    ),
                    "{{app_name}} {{exception_type}}",
                ),
            ),
            "ops",
        ),
        Panel(
            "Targets up per component",
            (('sum by (component) (up{component!=""})', "{{component}}"),),
            "short",
        ),
    ]


ROWS = (
    ("Traffic", traffic),
    ("Consumer lag", lag),
    ("Latency", latency),
    ("Model health", model_health),
    ("Overrides, fallbacks and plan repairs", corrections),
    ("Dispatch progress", dispatch),
    ("Dead letters and reliability", reliability),
)


def render_dashboard() -> str:
    """The dashboard JSON (stable key order, so re-rendering is byte-identical)."""
    panels, y = [], 0
    for title, build in ROWS:
        panels.append(
            {
                "type": "row",
                "title": title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": y},
                "panels": [],
            }
        )
        y += 1
        row = build()
        for i, panel in enumerate(row):
            panels.append(_panel(panel, x=(i % 3) * 8, y=y + (i // 3) * 8))
        y += 8 * ((len(row) + 2) // 3)
    for number, panel in enumerate(panels, start=1):
        panel["id"] = number
    return json.dumps(_dashboard(panels), indent=2) + "\n"


def _panel(panel: Panel, x: int, y: int) -> dict:
    targets = [
        {"datasource": DATASOURCE, "expr": expr, "legendFormat": legend, "refId": chr(ord("A") + i)}
        for i, (expr, legend) in enumerate(panel.queries)
    ]
    return {
        "type": "timeseries",
        "title": panel.title,
        "description": panel.description,
        "datasource": DATASOURCE,
        "gridPos": {"h": 8, "w": 8, "x": x, "y": y},
        "fieldConfig": {"defaults": {"unit": panel.unit}, "overrides": []},
        "options": {
            "legend": {"displayMode": "list", "placement": "bottom"},
            "tooltip": {"mode": "multi"},
        },
        "targets": targets,
    }


def _dashboard(panels: list[dict]) -> dict:
    datasource = {
        "name": "datasource",
        "label": "Prometheus",
        "type": "datasource",
        "query": "prometheus",
        "current": {},
    }
    return {
        "uid": "planwire-overview",
        "title": "planwire",
        "description": "Traffic, latency, model health, code overrides, dispatch progress and dead letters.",
        "tags": ["planwire"],
        "timezone": "browser",
        "refresh": "30s",
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "time": {"from": "now-1h", "to": "now"},
        "templating": {"list": [datasource]},
        "annotations": {"list": []},
        "panels": panels,
    }
