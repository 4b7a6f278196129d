"""Poll quickly while a service has traffic, slowly once it has had none for a while.

On a broker that answers a waiting fetch only part-way through its wait, never on a produce
(the embedded Tansu: docs/performance.md §8), one number is both the latency a hop pays and
how often an idle consumer polls: short waits keep turns fast and keep an idle stack busy
polling (about a fifth of a core for its 25 consumers). A `Pace` lets the number depend on
traffic. While the service has consumed or published anything in the last `quiet_after_s`
seconds its consumers fetch with their own waits (turn path 50 ms, the rest 250 ms on the
embedded stack); after that they all fetch with `quiet_ms`. The first message the service
sees or sends makes it busy again at once, so only the first turn after a quiet spell pays
the long wait, about a sixth of it per hop (a record arrives at a random point of a parked
fetch).

Off (`quiet_ms` None, the default outside the embedded stack): a broker that wakes parked
fetches, as Kafka does, can keep its usual 500 ms everywhere and needs none of this.

aiokafka reads the wait for every fetch request it builds from its fetcher
(`consumer._fetcher._fetch_max_wait_ms`) but has no public way to change it after start;
`set_fetch_wait` is the one place that reaches in, and says so in the log if a later
aiokafka moves it (then consumers simply keep their start-up wait).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from faststream import BaseMiddleware

from shared.tasks import alongside

log = logging.getLogger("planwire.pace")

TICK_S = 1.0  # how often a busy service checks whether it has gone quiet


def fetch_wait(hot_ms: int, quiet_ms: int | None, idle_s: float, quiet_after_s: float) -> int:
    """The wait a consumer whose own wait is `hot_ms` should fetch with now."""
    if quiet_ms is None or idle_s < quiet_after_s:
        return hot_ms
    return max(hot_ms, quiet_ms)  # never poll faster when quiet than when busy


def set_fetch_wait(consumer: Any, wait_ms: int) -> bool:
    """Make the consumer's next fetches wait up to `wait_ms`; False when it cannot be done."""
    fetcher = getattr(consumer, "_fetcher", None)
    if fetcher is None or not hasattr(fetcher, "_fetch_max_wait_ms"):
        return False
    fetcher._fetch_max_wait_ms = wait_ms
    return True


def set_fetcher_timeout(consumer: Any, timeout_ms: int) -> bool:
    """Make the consumer's fetch routine look for work unprompted every `timeout_ms` at most.

    aiokafka's `fetcher_timeout` (a constructor argument FastStream does not pass on, 200 ms
    by default) bounds how long its fetch routine sleeps between looks; everything it acts on
    (a fetch answered, records consumed, a seek, an assignment, a metadata update) wakes it
    before that, so a longer bound only drops the idle looks: five a second per consumer.
    False when this aiokafka has no such field (the consumer keeps its own).
    """
    fetcher = getattr(consumer, "_fetcher", None)
    if fetcher is None or not hasattr(fetcher, "_fetcher_timeout"):
        return False
    fetcher._fetcher_timeout = timeout_ms / 1000
    return True


def looks_every(subscriber: Any, timeout_ms: int) -> None:
    """Give the subscriber's consumer `set_fetcher_timeout(timeout_ms)` as soon as it starts
    (FastStream builds the consumer in `start`); a warning when this aiokafka cannot."""
    start = subscriber.start

    async def starting() -> None:
        await start()
        consumer = getattr(subscriber, "consumer", None)
        if consumer is not None and not set_fetcher_timeout(consumer, timeout_ms):
            log.warning("this aiokafka has no fetcher timeout to set: its fetcher keeps its own")

    subscriber.start = starting


def current_fetch_wait(consumer: Any) -> int | None:
    """The wait the consumer's next fetch asks for, when it can be read."""
    fetcher = getattr(consumer, "_fetcher", None)
    return getattr(fetcher, "_fetch_max_wait_ms", None)


@dataclass
class Pace:
    """One service process's traffic clock and the consumers it paces (module docstring)."""

    quiet_ms: int | None
    quiet_after_s: float
    clock: Callable[[], float] = time.monotonic
    last: float = -math.inf  # a service that has seen nothing yet is quiet
    paced: list[tuple[Any, int]] = field(default_factory=list)  # (subscriber, its own wait)
    unsupported: bool = False

    @property
    def on(self) -> bool:
        return self.quiet_ms is not None

    def add(self, subscriber: Any, hot_ms: int) -> None:
        """Pace a subscriber whose consumer is built with `hot_ms`."""
        self.paced.append((subscriber, hot_ms))

    def quiet(self) -> bool:
        return self.on and self.clock() - self.last >= self.quiet_after_s

    def mark(self) -> None:
        """Traffic: a message consumed or published. A quiet service is busy again at once."""
        was_quiet = self.quiet()
        self.last = self.clock()
        if was_quiet:
            self.apply()

    def apply(self) -> None:
        """Give every started consumer the wait it should have now."""
        if not self.on or self.unsupported:
            return
        idle_s = self.clock() - self.last
        for subscriber, hot_ms in self.paced:
            consumer = getattr(subscriber, "consumer", None)
            if consumer is None:  # not started yet (or stopped)
                continue
            wanted = fetch_wait(hot_ms, self.quiet_ms, idle_s, self.quiet_after_s)
            if current_fetch_wait(consumer) == wanted:
                continue
            if not set_fetch_wait(consumer, wanted):
                self.unsupported = True
                log.warning("this aiokafka has no fetcher wait to set: consumers keep their own")
                return

    async def run(self) -> None:
        """Check once a `TICK_S` (consumers start late, services go quiet); until cancelled."""
        while True:
            self.apply()
            await asyncio.sleep(TICK_S)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Pace]:
        """Pace the consumers for the lifetime of the app (nothing runs when it is off)."""
        if not self.on:
            yield self
            return
        async with alongside(self.run()):
            yield self

    def middleware(self) -> Any:
        """A broker middleware that marks every consumed and published message."""
        return partial(_Traffic, pace=self)


class _Traffic(BaseMiddleware):
    def __init__(self, msg: Any, /, *, context: Any, pace: Pace) -> None:
        super().__init__(msg, context=context)
        self.pace = pace

    async def consume_scope(self, call_next: Any, msg: Any) -> Any:
        self.pace.mark()
        return await call_next(msg)

    async def publish_scope(self, call_next: Any, cmd: Any) -> Any:
        self.pace.mark()
        return await call_next(cmd)
