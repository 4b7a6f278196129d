"""Domain metrics that several services record (Prometheus naming conventions)."""

from __future__ import annotations

from typing import Any

from aiokafka.abc import ConsumerRebalanceListener
from prometheus_client import Counter, Gauge, Histogram

from shared.commits import flush_revoked

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


ASSIGNED_PARTITIONS = Gauge(
    "planwire_assigned_partitions",
    "Partitions this process's consumers own now, by consumer group.",
    ["group"],
)


class PartitionOwnership(ConsumerRebalanceListener):  # type: ignore[misc]
    """Keeps `planwire_assigned_partitions` true for one consumer of `group`.

    A replica beyond a topic's partition count owns nothing and rightly receives nothing;
    alerts about silent consumers look at this gauge so they never page for it.
    """

    _owned: dict[str, dict[int, int]] = {}  # group -> {listener id: partitions it owns}

    def __init__(self, group: str) -> None:
        self.group = group
        self._set(0)

    async def on_partitions_revoked(self, revoked: Any) -> None:
        self._set(0)  # eager rebalancing: every partition is revoked, then all reassigned
        # Offsets settled but not committed yet go before the partitions do (shared/commits.py).
        await flush_revoked(self.group, revoked)

    def on_partitions_assigned(self, assigned: Any) -> None:
        self._set(len(assigned))

    def _set(self, count: int) -> None:
        owned = self._owned.setdefault(self.group, {})
        owned[id(self)] = count
        ASSIGNED_PARTITIONS.labels(self.group).set(sum(owned.values()))
