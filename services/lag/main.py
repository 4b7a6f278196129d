"""Lag exporter: every consumer group's lag per topic, as Prometheus gauges.

    planwire run lag [--discovered]

One process for the whole system rather than a metric inside each service: a stopped,
crashed or scaled-to-zero consumer exports nothing itself, and its lag is exactly what must
stay visible. Groups come from the topology (each core service's group, one per step
runner) and from the broker's own list; `--discovered` (the embedded stack, whose one
specialist process uses other groups) watches only the groups the broker knows. The groups
that read a topic before its service's one group took it over (`Consumes.former_group`) are
never watched: nobody reads in them any more, so their lag would only grow.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from fastapi import FastAPI, Response
from prometheus_client import Counter, Gauge

from catalog.runners import step_runners
from schemas.plan import RunStep
from schemas.topology import SERVICES
from services.lag.logic import topic_lag, watched_topics
from shared.app import serve
from shared.kafka_security import kafka_client_options
from shared.settings import InfraSettings
from shared.tasks import alongside

log = logging.getLogger("planwire.lag")

LAG = Gauge(
    "planwire_consumer_lag",
    "Messages published to a topic and not yet processed by a consumer group.",
    ["group", "topic"],
)
SAMPLE_ERRORS = Counter("planwire_consumer_lag_errors_total", "Lag samples that failed.")


class Settings(InfraSettings):
    """Where the broker is; how often to sample."""

    lag_sample_s: float = 5.0


# Groups retired when each service took all its topics into one group (never watched).
FORMER = frozenset(g for node in SERVICES for g in node.former_groups().values())


def declared_groups() -> dict[str, list[str]]:
    """Consumer group -> topics, as the topology and the per-runner deployments name them."""
    groups: dict[str, list[str]] = {}
    for node in SERVICES:
        for consumed in node.consumes:
            if consumed.event.topic is not None:
                groups.setdefault(node.group, []).append(consumed.event.topic.name)
    for runner in step_runners():
        groups[f"specialist.{runner}"] = [RunStep.topic_for(runner).name]
    return groups


class LagSampler:
    """Reads end offsets and each group's committed offsets; see the module docstring."""

    def __init__(
        self,
        bootstrap: str,
        *,
        discovered_only: bool,
        client_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.bootstrap, self.discovered_only = bootstrap, discovered_only
        self.declared = declared_groups()
        options = client_options or {}  # SASL/TLS as every client (shared/kafka_security.py)
        self.admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **options)
        self.offsets = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, enable_auto_commit=False, **options
        )

    async def __aenter__(self) -> LagSampler:
        await self.admin.start()
        await self.offsets.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.offsets.stop()
        await self.admin.close()

    async def sample(self) -> dict[tuple[str, str], int]:
        """(group, topic) -> lag, for every watched group."""
        partitions = await self._partitions()
        ends = await self.offsets.end_offsets(partitions)
        starts = await self.offsets.beginning_offsets(partitions)
        known = {group for group, _kind in await self.admin.list_consumer_groups()}
        groups = (known if self.discovered_only else known | set(self.declared)) - FORMER
        lags = {}
        for group in sorted(groups):
            # Explicit partitions: the embedded broker cannot answer "all of them".
            found = await self.admin.list_consumer_group_offsets(group, partitions=partitions)
            committed = {tp: meta.offset for tp, meta in found.items()}
            for topic in watched_topics(committed, self.declared.get(group, ())):
                lags[group, topic] = topic_lag(ends, starts, committed, topic)
        return lags

    async def _partitions(self) -> list[TopicPartition]:
        """Every partition of the planwire topics that exist (dead-letter topics excluded)."""
        wanted = {t for topics in self.declared.values() for t in topics}
        existing = await self.offsets.topics()
        return [
            TopicPartition(topic, p)
            for topic in sorted(wanted & existing)
            for p in sorted(self.offsets.partitions_for_topic(topic) or ())
        ]


def publish(lags: dict[tuple[str, str], int]) -> None:
    """Replace the gauges in one step (no await in between, so no scrape sees half)."""
    LAG.clear()
    for (group, topic), value in lags.items():
        LAG.labels(group, topic).set(value)


async def sample_forever(sampler: LagSampler, every_s: float) -> None:
    while True:
        try:
            publish(await sampler.sample())
        except Exception:
            SAMPLE_ERRORS.inc()
            log.exception("could not sample consumer lag")
        await asyncio.sleep(every_s)


def create_app(settings: Settings, *, discovered_only: bool) -> FastAPI:
    """`/health` (metrics: `serve`'s own port); the sampler runs for the app's lifetime."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with (
            LagSampler(
                settings.kafka_bootstrap,
                discovered_only=discovered_only,
                client_options=kafka_client_options(settings),
            ) as s,
            alongside(sample_forever(s, settings.lag_sample_s)),
        ):
            yield

    app = FastAPI(title="planwire lag exporter", lifespan=lifespan)

    @app.get("/health", include_in_schema=False)
    @app.get("/ready", include_in_schema=False)
    async def health() -> Response:
        """204: the process runs (sampling failures are counted, not fatal; it serves no traffic)."""
        return Response(status_code=204)

    return app


if __name__ == "__main__":
    serve(create_app(Settings(), discovered_only="--discovered" in sys.argv[1:]), Settings(), "lag")
