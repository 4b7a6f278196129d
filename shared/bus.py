"""Kafka wiring shared by every service: broker, consumer options, topic creation."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError
from aiokafka.structs import OffsetAndMetadata
from faststream.kafka import KafkaBroker
from faststream.kafka.prometheus import KafkaPrometheusMiddleware
from faststream.middlewares import AckPolicy
from prometheus_client import REGISTRY

from shared.budgets import MAX_POLL_INTERVAL_S
from shared.commits import DeferredCommit
from shared.deadletter import DeadLetterMiddleware
from shared.faults import CrashBeforePublish
from shared.kafka_security import kafka_security
from shared.metrics import PartitionOwnership
from shared.retry import RetryPolicy
from shared.settings import InfraSettings
from shared.tracing import kafka_middlewares

log = logging.getLogger("planwire.bus")
# FastStream's per-message "Received" / "Processed" lines, at DEBUG through the process's own
# logging (shared/logs.py): at INFO they were two formatted writes per message in every
# service, all of a busy log. Handler errors are still logged at ERROR.
ACCESS_LOG = logging.getLogger("planwire.kafka")


def make_broker(
    settings: InfraSettings, *, client_id: str, extra_middlewares: tuple[Any, ...] = ()
) -> KafkaBroker:
    """A broker with dead-lettering, Prometheus metrics and trace propagation on every subscriber.

    Producers wait for every in-sync replica (`acks=all`) and are idempotent unless the
    settings say otherwise (the embedded Tansu broker rejects idempotent producers).
    """
    acks = settings.kafka_acks if settings.kafka_acks == "all" else int(settings.kafka_acks)
    return KafkaBroker(
        settings.kafka_bootstrap,
        security=kafka_security(settings),
        client_id=client_id,
        acks=acks,
        enable_idempotence=settings.kafka_idempotence,
        logger=ACCESS_LOG,
        log_level=logging.DEBUG,
        middlewares=[
            KafkaPrometheusMiddleware(registry=REGISTRY, app_name=client_id),
            *kafka_middlewares(client_id),
            DeferredCommit.factory(interval_s=settings.commit_interval_ms / 1000),
            DeadLetterMiddleware.factory(
                max_bytes=settings.max_message_bytes, policy=retry_policy(settings)
            ),
            CrashBeforePublish,
            *extra_middlewares,
        ],
    )


def retry_policy(settings: InfraSettings) -> RetryPolicy:
    """How every consumer retries a transiently failing message (`shared.retry`)."""
    return RetryPolicy(
        attempts=settings.handler_attempts,
        backoff_s=settings.handler_backoff_s,
        max_backoff_s=settings.handler_max_backoff_s,
        give_up_s=settings.handler_give_up_s,
    )


def consumer_options(settings: InfraSettings, group_id: str) -> dict[str, Any]:
    """Subscriber options: a consumer group, commit after processing, a tunable fetch wait,
    and the partitions it owns counted (`planwire_assigned_partitions`).

    An exception that escapes the dead-letter middleware rewinds the offset (nack) rather
    than committing it: a message is committed only once handled, skipped as done, or parked.
    """
    return {
        "group_id": group_id,
        "listener": PartitionOwnership(group_id),
        "ack_policy": AckPolicy.NACK_ON_ERROR,
        "fetch_max_wait_ms": settings.fetch_max_wait_ms,
        "auto_offset_reset": "earliest",
        "session_timeout_ms": settings.consumer_session_timeout_ms,
        "heartbeat_interval_ms": settings.consumer_heartbeat_ms,
        # A delivery's worst case is held under this by shared/budgets.py (tested there).
        "max_poll_interval_ms": int(MAX_POLL_INTERVAL_S * 1000),
    }


class TopicMismatch(RuntimeError):
    """A topic exists with another partition count than the topology declares."""


async def ensure_topics(
    bootstrap: str,
    topics: list[tuple[str, int]],
    *,
    replication: int = 1,
    min_insync_replicas: int | None = None,
    client_options: Mapping[str, Any] | None = None,
) -> list[str]:
    """Create the topics that do not exist yet; returns the names it created.

    `client_options`: how to connect (`shared.kafka_security.kafka_client_options`).

    Topics that exist must have the declared partition count: keys are spread by partition,
    so a topic with another count sends a session's events elsewhere (TopicMismatch).
    """
    configs = {"min.insync.replicas": str(min_insync_replicas)} if min_insync_replicas else {}
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **(client_options or {}))
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        await check_partitions(admin, [(n, p) for n, p in topics if n in existing])
        missing = [
            NewTopic(name, parts, replication, topic_configs=configs)
            for name, parts in topics
            if name not in existing
        ]
        if missing:
            try:
                await admin.create_topics(missing)
            except TopicAlreadyExistsError:
                log.info("another process created some topics first")
        return [t.name for t in missing]
    finally:
        await admin.close()


async def check_partitions(admin: AIOKafkaAdminClient, topics: list[tuple[str, int]]) -> None:
    """Raise TopicMismatch naming every existing topic whose partition count is not declared."""
    if not topics:
        return
    described = {
        t["topic"]: len(t["partitions"])
        for t in await admin.describe_topics([n for n, _ in topics])
    }
    wrong = [f"{n} has {described[n]}, declared {p}" for n, p in topics if described.get(n, p) != p]
    if wrong:
        raise TopicMismatch("partition counts differ from the topology: " + "; ".join(wrong))


async def adopt_offsets(
    bootstrap: str,
    group: str,
    former: Mapping[str, str],
    client_options: Mapping[str, Any] | None = None,
) -> dict[TopicPartition, int]:
    """Give `group` the committed offsets of the groups that read its topics before
    (`former`: topic -> group), for every partition `group` has no offset of its own for.

    Renaming a consumer group otherwise starts it at `auto_offset_reset`: "earliest" replays
    every topic's retained history, "latest" skips what was published while no one read.
    Called before the service's consumer joins; a partition whose offset is already
    committed keeps it, so calling it again (every start, every replica) changes nothing.
    Returns what it committed. A broker that refuses the commit (a replica of the new version
    already joined the group, on a broker that takes commits only from members) is logged:
    the group then starts at "earliest", and the claims skip what was done.
    """
    if not former:
        return {}
    options = client_options or {}
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **options)
    committer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group, **options)
    await admin.start()
    await committer.start()
    try:
        existing = await committer.topics()
        partitions = [
            TopicPartition(topic, p)
            for topic in sorted(set(former) & existing)
            for p in sorted(committer.partitions_for_topic(topic) or ())
        ]
        # Explicit partitions: the embedded broker cannot answer "all of them".
        own = await admin.list_consumer_group_offsets(group, partitions=partitions)
        missing = [tp for tp in partitions if tp not in own or own[tp].offset < 0]
        adopted: dict[TopicPartition, int] = {}
        for old in sorted({former[tp.topic] for tp in missing}):
            theirs = [tp for tp in missing if former[tp.topic] == old]
            found = await admin.list_consumer_group_offsets(old, partitions=theirs)
            adopted |= {tp: meta.offset for tp, meta in found.items() if meta.offset >= 0}
        if adopted:
            committer.assign(list(adopted))
            try:
                await committer.commit(
                    {tp: OffsetAndMetadata(offset, "") for tp, offset in adopted.items()}
                )
            except KafkaError as error:
                log.warning("group %s could not take its former offsets: %r", group, error)
                return {}
            log.info(
                "group %s starts where %s stopped (%d partitions)",
                group,
                ", ".join(sorted({former[tp.topic] for tp in adopted})),
                len(adopted),
            )
        return adopted
    finally:
        await committer.stop()
        await admin.close()
