"""`planwire soak`, the running part: the ramp, the soak at a steady rate, RSS samples.

Without a stated rate, a short ramp first plays the eval's conversations as fast as 4, 8,
16... sessions can (planwire/soakdrive.py), until more sessions add under 5%, and the soak
runs at half that saturation rate. Meanwhile every `sample_s` the RSS of every stack process
is read from /proc; a process that exits is an error, and so is a dead letter.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from planwire.bench import rss_mb
from planwire.evaluate import Case
from planwire.soak import Pacer, Sample, SoakReport, best_step, saturated
from planwire.soakdrive import Driver, Tally, cycle

if TYPE_CHECKING:
    from planwire.stack import EmbeddedStack

RAMP_SESSIONS = (4, 8, 16, 32, 64, 128)


async def ramp(driver: Driver, step_s: float, log: Any) -> list[tuple[int, float]]:
    """(sessions, turns/s) as fast as 4, 8, 16... sessions play, until it saturates.

    Each step starts afresh and is cut at its end (its unfinished turns are not judged).
    """
    steps: list[tuple[int, float]] = []
    for sessions in RAMP_SESSIONS:
        driver = Driver(driver.url, driver.cases, driver.timeout_s)
        task = asyncio.create_task(driver.run(sessions, step_s))
        await asyncio.sleep(step_s)
        rate = round(driver.tally.turns / step_s, 2)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await driver.lost()  # closes the clients it kept
        steps.append((sessions, rate))
        log(f"ramp: {sessions} sessions, {rate} turns/s")
        if saturated(steps):
            break
    return steps


class SoakError(RuntimeError):
    """The soak could not run (the ramp answered no turn at all)."""


def stack_rss(stack: EmbeddedStack) -> dict[str, float]:
    """RSS in MB of every stack process still running, by name."""
    children = [*stack.infra, *stack.services]
    return {c.name: round(rss_mb([c.pid]), 1) for c in children if c.running()}


@dataclass
class Sampler:
    """Reads every process's RSS every `every_s` seconds until stopped; notes exits."""

    stack: EmbeddedStack
    tally: Tally
    every_s: float
    log: Any
    samples: list[Sample] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    started: float = field(default_factory=time.monotonic)

    def take(self) -> None:
        """One sample, printed; a process that exited since the last one is an error."""
        before = self.samples[-1].rss_mb if self.samples else {}
        rss = stack_rss(self.stack)
        for name in before.keys() - rss.keys():
            self.tally.errors[f"{name} exited"] += 1
        at = round(time.monotonic() - self.started, 1)
        self.samples.append(Sample(at, self.tally.turns, rss))
        shown = ", ".join(f"{k} {v:.0f}" for k, v in rss.items())
        self.log(f"{at / 60:5.1f} min {self.tally.turns:>7} turns  rss MB: {shown}")

    async def run(self) -> None:
        """Sample until `stop` is set, then once more."""
        while not self.stop.is_set():
            self.take()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), self.every_s)
        self.take()


async def choose_rate(
    driver: Driver, rate: float | None, sessions: int | None, step_s: float, log: Any
) -> tuple[float, str, int, list[tuple[int, float]]]:
    """The soak's rate, where it comes from, its session count, and the ramp's steps."""
    if rate is not None:
        return rate, "stated with --rate", sessions or max(4, math.ceil(rate * 2)), []
    steps = await ramp(driver, step_s, log)
    at, top = best_step(steps)
    if top <= 0:
        raise SoakError("the ramp answered no turn: see the stack's logs")
    source = f"half of {top} turns/s, the saturation the ramp measured at {at} sessions"
    return round(top / 2, 2), source, sessions or at, steps


async def run_soak(
    stack: EmbeddedStack,
    cases: list[Case],
    *,
    minutes: float,
    rate: float | None = None,
    sessions: int | None = None,
    sample_s: float = 30.0,
    ramp_step_s: float = 20.0,
    timeout_s: float = 60.0,
    seed: int = 1,
    log: Any = print,
) -> SoakReport:
    """The ramp (without a stated rate), then the soak; its report."""
    from planwire.chaosrun import dlq_count

    driver = Driver(stack.gateway_url, cycle(cases, seed), timeout_s)
    rate, source, sessions, steps = await choose_rate(driver, rate, sessions, ramp_step_s, log)
    log(f"rate: {rate} turns/s ({source}); {sessions} sessions")
    sampler = Sampler(stack, driver.tally, sample_s, log)
    sampling = asyncio.create_task(sampler.run())
    await driver.run(sessions, minutes * 60, Pacer(rate))
    sampler.stop.set()
    await sampling
    lost = await driver.lost()
    if dead := await dlq_count(stack.bootstrap):
        driver.tally.errors["dead letters"] += dead
    return SoakReport(
        minutes=minutes,
        rate=rate,
        rate_source=source,
        turns=driver.tally.turns,
        sessions=driver.tally.sessions,
        lost=lost,
        errors=dict(driver.tally.errors),
        samples=sampler.samples,
        holders=(stack.broker, "valkey"),
        ramp=steps,
    )
