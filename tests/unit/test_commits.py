"""Settled offsets are committed together a moment later; nothing past a failure ever is."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from aiokafka import ConsumerRecord, TopicPartition
from faststream.message import AckStatus

from shared.commits import COMMITS, DeferredCommit, flush_revoked, noted_for

T0, T1 = TopicPartition("turns", 0), TopicPartition("turns", 1)


class Consumer:
    """An aiokafka consumer as far as commits go: its group, what it owns, what it committed."""

    def __init__(self, group: str = "g", owned: tuple[TopicPartition, ...] = (T0, T1)) -> None:
        self._group_id = group
        self.owned = set(owned)
        self.commits: list[dict[TopicPartition, int]] = []
        self.fail = False

    def assignment(self) -> set[TopicPartition]:
        return self.owned

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        if self.fail:
            raise RuntimeError("CommitFailedError: the group rebalanced")
        self.commits.append(dict(offsets))


def message(consumer: Consumer, partition: int, offset: int) -> SimpleNamespace:
    record = ConsumerRecord("turns", partition, offset, 0, 0, b"k", b"v", None, 1, 1, [])
    return SimpleNamespace(consumer=consumer, raw_message=record, committed=None)


async def settle(consumer: Consumer, partition: int, offset: int, interval_s: float = 0.05):
    """One message through the middleware with a handler that succeeds."""
    msg = message(consumer, partition, offset)
    middleware = DeferredCommit(msg, context=None, interval_s=interval_s)

    async def handled(_msg):
        return "ok"

    assert await middleware.consume_scope(handled, msg) == "ok"
    return msg


def commits_counted(outcome: str) -> float:
    return COMMITS.labels(outcome)._value.get()


async def test_settled_messages_are_committed_in_one_request_after_the_interval():
    consumer = Consumer()
    for offset in (10, 11, 12):
        msg = await settle(consumer, 0, offset)
        assert msg.committed is AckStatus.ACKED  # FastStream's own ack sends nothing
    await settle(consumer, 1, 4)
    assert consumer.commits == []  # nothing yet: one round trip for all of them, later
    await asyncio.sleep(0.15)
    assert consumer.commits == [{T0: 13, T1: 5}]


async def test_a_failed_message_is_not_noted_and_fastStream_rewinds_to_it():
    consumer = Consumer()
    await settle(consumer, 0, 20)
    failing = message(consumer, 0, 21)

    async def fails(_msg):
        raise RuntimeError("redis is down")

    with pytest.raises(RuntimeError):
        await DeferredCommit(failing, context=None, interval_s=0.05).consume_scope(fails, failing)
    assert failing.committed is None  # left to FastStream's nack (seek back to 21)
    await asyncio.sleep(0.15)
    assert consumer.commits == [{T0: 21}]  # up to the failure, never past it


async def test_messages_settled_while_a_commit_is_on_its_way_go_in_the_next_one():
    consumer = Consumer()
    await settle(consumer, 0, 1)
    await asyncio.sleep(0.08)
    await settle(consumer, 0, 2)
    await asyncio.sleep(0.15)
    assert consumer.commits == [{T0: 2}, {T0: 3}]


async def test_a_rebalance_commits_what_is_noted_for_the_partitions_it_takes():
    consumer = Consumer(group="trimmer.turns")
    other_group = Consumer(group="trimmer.replies")
    await settle(consumer, 0, 7, interval_s=60)
    await settle(consumer, 1, 3, interval_s=60)
    await settle(other_group, 0, 9, interval_s=60)
    await flush_revoked("trimmer.turns", [T0])
    assert consumer.commits == [{T0: 8}]
    assert other_group.commits == []  # another group's consumer keeps its own
    assert noted_for(consumer, 60).pending == {T1: 4}


async def test_partitions_no_longer_owned_are_not_committed_and_a_failed_commit_is_counted():
    consumer = Consumer(owned=(T0,))
    await settle(consumer, 1, 5)  # its partition went elsewhere meanwhile
    await asyncio.sleep(0.15)
    assert consumer.commits == []

    failed_before = commits_counted("failed")
    consumer.fail = True
    await settle(consumer, 0, 5)
    await asyncio.sleep(0.15)
    assert commits_counted("failed") == failed_before + 1
    assert noted_for(consumer, 0.05).pending == {}  # not retried: the messages come back


async def test_off_leaves_acknowledging_to_fastStream():
    consumer = Consumer()
    msg = await settle(consumer, 0, 1, interval_s=0)
    await asyncio.sleep(0.05)
    assert msg.committed is None and consumer.commits == []


async def test_a_consumer_without_a_group_is_left_alone():
    consumer = Consumer(group=None)
    msg = await settle(consumer, 0, 1)
    assert msg.committed is None


async def test_out_of_order_settling_commits_only_up_to_the_oldest_message_still_open():
    consumer = Consumer()
    noted = noted_for(consumer, 0.05)
    tokens = {offset: noted.begin(T0, offset) for offset in (30, 31, 32)}
    noted.settle(T0, 32, tokens[32])
    noted.settle(T0, 31, tokens[31])
    await asyncio.sleep(0.15)
    assert consumer.commits == [{T0: 30}]  # 30 still runs: nothing past it
    noted.settle(T0, 30, tokens[30])
    await asyncio.sleep(0.15)
    assert consumer.commits[-1] == {T0: 33}


async def test_a_message_taken_before_its_partition_was_revoked_settles_into_nothing():
    consumer = Consumer(group="annotator.trimmed")
    noted = noted_for(consumer, 60)
    stale = noted.begin(T0, 40)
    await flush_revoked("annotator.trimmed", [T0])
    # The partition comes back; the next owner committed up to 50 and this consumer reads on.
    fresh = noted.begin(T0, 50)
    noted.settle(T0, 40, stale)
    assert noted.pending == {}  # the old message moves nothing
    noted.settle(T0, 50, fresh)
    assert noted.pending == {T0: 51}
