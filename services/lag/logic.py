"""Consumer lag arithmetic: pure, no I/O."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from aiokafka import TopicPartition

NO_OFFSET = -1  # what OffsetFetch answers for a partition the group never committed


def topic_lag(
    ends: Mapping[TopicPartition, int],
    starts: Mapping[TopicPartition, int],
    committed: Mapping[TopicPartition, int],
    topic: str,
) -> int:
    """Messages of `topic` the group has not processed yet, summed over its partitions.

    A partition the group never committed on counts from its first retained offset: the
    services start a new group at the earliest offset, so all of it is still to do.
    """
    total = 0
    for tp, end in ends.items():
        if tp.topic == topic:
            done = committed.get(tp, NO_OFFSET)
            total += max(0, end - (starts.get(tp, 0) if done == NO_OFFSET else done))
    return total


def watched_topics(
    committed: Mapping[TopicPartition, int], declared: Iterable[str] = ()
) -> list[str]:
    """The topics a group reads: the declared ones and any it has committed on."""
    seen = {tp.topic for tp, offset in committed.items() if offset != NO_OFFSET}
    return sorted(seen | set(declared))
