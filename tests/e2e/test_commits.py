"""Deferred offset commits on the real embedded broker (shared/commits.py): every settled
message's offset reaches the group in far fewer commits than messages, and a message that
failed is delivered again before anything past it is committed."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from aiokafka import TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from shared.bus import consumer_options, ensure_topics, make_broker
from shared.commits import COMMITS, commit_on_stop
from shared.settings import InfraSettings

pytestmark = pytest.mark.e2e


async def committed(bootstrap: str, group: str, tp: TopicPartition) -> int:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        # Explicit partitions: the embedded broker cannot answer "all of them".
        offsets = await admin.list_consumer_group_offsets(group, partitions=[tp])
    finally:
        await admin.close()
    return offsets[tp].offset if tp in offsets else -1


async def publish_and_wait(
    settings: InfraSettings, topic: str, count: int, seen: list[int]
) -> None:
    """Publish 0..count-1 to `topic`; return once `seen` holds as many (or after 10 s)."""
    sender = make_broker(settings, client_id=f"{topic}-sender")
    await sender.start()
    try:
        for n in range(count):
            await sender.publish(str(n), topic)
        for _ in range(200):
            if len(seen) >= count:
                break
            await asyncio.sleep(0.05)
    finally:
        await sender.stop()


async def test_settled_offsets_are_committed_together_and_a_failure_is_read_again(stack):
    topic = f"commits-{uuid.uuid4().hex[:8]}"
    group = f"{topic}.group"
    await ensure_topics(stack.bootstrap, [(topic, 1)])
    settings = InfraSettings(
        kafka_bootstrap=stack.bootstrap,
        kafka_idempotence=False,
        commit_interval_ms=200,
        handler_attempts=1,  # a failure rewinds at once: FastStream seeks back to it
        handler_backoff_s=0.01,
    )
    broker = make_broker(settings, client_id="commits-test")
    seen: list[int] = []
    failed: list[int] = []

    @broker.subscriber(topic, **(consumer_options(settings, group) | {"fetch_max_wait_ms": 50}))
    async def handle(body: str) -> None:
        n = int(body)
        if n == 7 and not failed:
            failed.append(n)
            raise RuntimeError("a transient failure on the first delivery of 7")
        seen.append(n)

    commits_before = COMMITS.labels("ok")._value.get()
    await broker.start()
    try:
        await publish_and_wait(settings, topic, 30, seen)
        await asyncio.sleep(0.5)  # more than the commit interval
        assert sorted(seen) == list(range(30)) and failed == [7]
        assert seen.index(7) > seen.index(6)  # read again in order, nothing skipped
        assert await committed(stack.bootstrap, group, TopicPartition(topic, 0)) == 30
        commits = COMMITS.labels("ok")._value.get() - commits_before
        assert 1 <= commits < 30, commits
    finally:
        await broker.stop()


async def test_a_clean_stop_commits_what_is_noted_before_leaving_the_group(stack):
    topic = f"commits-stop-{uuid.uuid4().hex[:8]}"
    group = f"{topic}.group"
    await ensure_topics(stack.bootstrap, [(topic, 1)])
    # A commit interval no test waits out: only the stop can commit these offsets.
    settings = InfraSettings(
        kafka_bootstrap=stack.bootstrap, kafka_idempotence=False, commit_interval_ms=600_000
    )
    broker = make_broker(settings, client_id="commits-stop-test")
    seen: list[int] = []
    subscriber = broker.subscriber(
        topic, **(consumer_options(settings, group) | {"fetch_max_wait_ms": 50})
    )

    @subscriber
    async def handle(body: str) -> None:
        seen.append(int(body))

    commit_on_stop(subscriber)
    await broker.start()
    try:
        await publish_and_wait(settings, topic, 12, seen)
        assert sorted(seen) == list(range(12))
        assert await committed(stack.bootstrap, group, TopicPartition(topic, 0)) < 12
    finally:
        await broker.stop()
    # The next owner of the partition starts after the last handled message.
    assert await committed(stack.bootstrap, group, TopicPartition(topic, 0)) == 12
