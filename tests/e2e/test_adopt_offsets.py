"""A service's one consumer group takes over from the groups that read its topics before, on
the real embedded broker (shared.bus.adopt_offsets): an upgrade neither replays nor skips."""

from __future__ import annotations

import uuid

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from planwire.stack import BROKER_CONSUMER_ENV, broker_kind
from shared.bus import adopt_offsets, ensure_topics

pytestmark = pytest.mark.e2e
CONSUMER_ENV = BROKER_CONSUMER_ENV[broker_kind()]


async def publish(bootstrap: str, topic: str, values: list[str]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for i, value in enumerate(values):
            await producer.send_and_wait(topic, value.encode(), partition=i % 2)
    finally:
        await producer.stop()


async def read(bootstrap: str, group: str, *topics: str, expected: int) -> list[str]:
    """What a member of `group` reads of `topics` (committing it), waiting for `expected`."""
    consumer = AIOKafkaConsumer(
        *topics,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        # What the stack gives its services on this broker (noida-db refuses under 6 s).
        session_timeout_ms=int(CONSUMER_ENV["PLANWIRE_CONSUMER_SESSION_TIMEOUT_MS"]),
        heartbeat_interval_ms=int(CONSUMER_ENV["PLANWIRE_CONSUMER_HEARTBEAT_MS"]),
    )
    await consumer.start()
    got: list[str] = []
    try:
        for _ in range(20):
            batch = await consumer.getmany(timeout_ms=500)
            got += [r.value.decode() for records in batch.values() for r in records]
            if len(got) >= expected and not batch:
                break
        await consumer.commit()
    finally:
        await consumer.stop()
    return sorted(got)


async def test_a_new_group_reads_only_what_the_former_groups_had_not(stack):
    tag = uuid.uuid4().hex[:8]
    turns, replies = f"adopt-turns-{tag}", f"adopt-replies-{tag}"
    await ensure_topics(stack.bootstrap, [(turns, 2), (replies, 2)])
    await publish(stack.bootstrap, turns, ["t1", "t2", "t3"])
    await publish(stack.bootstrap, replies, ["r1", "r2"])
    assert await read(stack.bootstrap, f"old.turns-{tag}", turns, expected=3) == ["t1", "t2", "t3"]
    assert await read(stack.bootstrap, f"old.replies-{tag}", replies, expected=2) == ["r1", "r2"]
    await publish(stack.bootstrap, turns, ["t4", "t5"])  # published while no one reads
    await publish(stack.bootstrap, replies, ["r3"])

    former = {turns: f"old.turns-{tag}", replies: f"old.replies-{tag}"}
    adopted = await adopt_offsets(stack.bootstrap, f"service-{tag}", former)

    assert sum(adopted.values()) == 5  # every partition, at the former groups' positions
    both = await read(stack.bootstrap, f"service-{tag}", turns, replies, expected=3)
    assert both == ["r3", "t4", "t5"]  # nothing read twice, nothing skipped
    # Its own offsets now stand: a second start (or another replica) changes nothing.
    assert await adopt_offsets(stack.bootstrap, f"service-{tag}", former) == {}


async def test_a_group_with_no_former_offsets_starts_at_the_beginning(stack):
    tag = uuid.uuid4().hex[:8]
    topic = f"adopt-fresh-{tag}"
    await ensure_topics(stack.bootstrap, [(topic, 2)])
    await publish(stack.bootstrap, topic, ["a", "b"])

    assert await adopt_offsets(stack.bootstrap, f"service-{tag}", {topic: f"never-{tag}"}) == {}
    assert await read(stack.bootstrap, f"service-{tag}", topic, expected=2) == ["a", "b"]


async def test_topics_that_do_not_exist_yet_leave_nothing_to_take_over(stack):
    tag = uuid.uuid4().hex[:8]
    former = {f"adopt-missing-{tag}": f"old-{tag}"}
    assert await adopt_offsets(stack.bootstrap, f"service-{tag}", former) == {}
