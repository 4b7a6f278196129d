"""Lanes: a consumer handles messages of different keys at once, each key's in order.

A FastStream subscriber handles one message at a time. For a handler that waits on a model
that is one call in flight per partition consumer: with a 200 ms model a replica passes at
most 5 messages a second however many sessions wait, and with a model that takes seconds a
whole deployment passes (partitions / seconds per call). The broker keeps order only per
partition and planwire needs it only per key (a session), so a consumer may run messages
of different keys side by side.

`in_lanes(subscriber, limit, interval_s)` (the kit applies it to services that call a model,
`PLANWIRE_KEY_CONCURRENCY`) replaces the subscriber's `consume_one`, the step its consume
loop takes for each record, the one FastStream's own concurrent subscriber replaces. For each
record it
- waits for one of `limit` slots (so a consumer holds at most `limit` messages; past the
  delivery budget it rewinds to the record instead, so the consumer keeps polling);
- marks the offset taken (`shared.commits.Noted.begin`) and starts a task that waits for the
  key's previous message to end, then processes the record as FastStream would have (every
  middleware, the claim, the handler);
- returns at once, so the consumer reads the next record.

Inside a lane, `shared.commits.DeferredCommit` settles the message once the chain returned
(handled, skipped as done, parked), and tries again in place when a transient failure used
up a delivery's tries (the dead-letter middleware waited its backoff and parks the message
after its give-up time), so the key's next messages wait behind it, as they wait behind a
rewind when one message is handled at a time. The committed watermark never passes a message
taken and not settled, so a crash loses nothing: everything from the lowest open offset is
read again and the claims skip what was done.

A clean stop takes no new record (each is rewound for the next owner), lets the running
ones finish for up to `DRAIN_S`, then cancels the rest (read again by the next owner), before
the noted offsets are committed (`shared.commits.commit_on_stop`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from aiokafka import ConsumerRecord, TopicPartition
from prometheus_client import Gauge

from shared.budgets import DELIVERY_BUDGET_S
from shared.commits import IN_LANE, Noted, noted_for

log = logging.getLogger("planwire.lanes")

IN_FLIGHT = Gauge(
    "planwire_lane_messages",
    "Messages a consumer has taken and not settled yet (running or waiting for their key).",
    ["topic"],
)
DRAIN_S = 10.0  # a clean stop waits this long for running messages
RETRY_S = 1.0  # a message the chain did not settle (it never reached it) is tried again after
REFUSED_WAIT_S = 0.05  # while stopping, a new record is rewound after this pause


@dataclass
class Taken:
    """One record a lane runs: where it is, and whether it is settled."""

    noted: Noted
    tp: TopicPartition
    offset: int
    token: int
    settled: bool = False

    def settle(self) -> None:
        self.noted.settle(self.tp, self.offset, self.token)
        self.settled = True


class Lanes:
    """One consumer's running messages: a slot each, and the last task of each key."""

    def __init__(self, limit: int) -> None:
        self.slots = asyncio.Semaphore(limit)
        self.tails: dict[Any, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.closing = False

    def start(
        self,
        key: Any,
        run: Callable[[asyncio.Task[None] | None], Coroutine[Any, Any, None]],
        topic: str,
    ) -> None:
        """Run `run(previous)` in `key`'s lane; the slot is freed when it ends."""
        task = asyncio.create_task(run(self.tails.get(key)))
        self.tails[key] = task
        self.tasks.add(task)
        IN_FLIGHT.labels(topic).inc()

        def ended(done: asyncio.Task[None]) -> None:
            self.tasks.discard(done)
            if self.tails.get(key) is done:
                del self.tails[key]
            self.slots.release()
            IN_FLIGHT.labels(topic).dec()

        task.add_done_callback(ended)

    async def drain(self, timeout_s: float = DRAIN_S) -> None:
        """Take no more records; wait for the running ones, then cancel what is left."""
        self.closing = True
        if not self.tasks:
            return
        _, left = await asyncio.wait(set(self.tasks), timeout=timeout_s)
        for task in left:
            task.cancel()
        if left:
            log.warning("stopping: %d message(s) cancelled, to be read again", len(left))
            await asyncio.wait(left)


def in_lanes(
    subscriber: Any, limit: int, interval_s: float, wait_s: float = DELIVERY_BUDGET_S
) -> None:
    """Make `subscriber` run up to `limit` records of different keys at once (module
    docstring). Needs deferred commits (`interval_s` > 0): without them, one at a time."""
    if limit <= 1 or interval_s <= 0:
        return
    one_at_a_time = subscriber.consume_one

    async def consume_one(record: Any) -> None:
        consumer: Any = getattr(subscriber, "consumer", None)
        if not isinstance(record, ConsumerRecord) or getattr(consumer, "_group_id", None) is None:
            await one_at_a_time(record)
            return None
        tp = TopicPartition(record.topic, record.partition)
        noted = noted_for(consumer, interval_s)
        lanes = noted.lanes
        if lanes is not None and lanes.closing:
            # Not taken, not even one at a time: FastStream's own ack would commit the
            # consumer's position, past a message the drain cancelled. The next owner reads it.
            await asyncio.sleep(REFUSED_WAIT_S)
            consumer.seek(tp, record.offset)
            return None
        if noted.closing:  # stopping, and no record was ever taken in a lane
            await one_at_a_time(record)
            return None
        if lanes is None:
            lanes = noted.lanes = Lanes(limit)
        try:
            await asyncio.wait_for(lanes.slots.acquire(), wait_s)
        except TimeoutError:
            consumer.seek(tp, record.offset)  # poll, then take it again
            return None
        taken = Taken(noted, tp, record.offset, noted.begin(tp, record.offset))

        async def run(previous: asyncio.Task[None] | None) -> None:
            if previous is not None:
                await asyncio.wait({previous})  # the key's order, whatever became of it
            IN_LANE.set(taken)
            while subscriber.running:
                await subscriber.consume(record)
                if taken.settled:
                    return
                log.error("a message on %s was not settled; trying it again", record.topic)
                await asyncio.sleep(RETRY_S)

        lanes.start(record.key, run, record.topic)
        return None

    subscriber.consume_one = consume_one
