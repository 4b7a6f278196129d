"""Domain metrics that several services record (Prometheus naming conventions)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

OVERRIDES = Counter(
    "planwire_overrides_total",
    "Times code overrode or corrected the model, by rule.",
    ["service", "rule"],
)
EVENTS_HANDLED = Counter(
    "planwire_events_handled_total", "Events a service handled to completion.", ["service", "event"]
)
HANDLER_SECONDS = Histogram(
    "planwire_handler_seconds", "Time to handle one event.", ["service", "event"]
)


def record_overrides(service: str, rules: list[str]) -> None:
    """Count each rule that fired."""
    for rule in rules:
        OVERRIDES.labels(service, rule).inc()
