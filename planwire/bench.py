"""`planwire bench`: figures for the embedded stack, and where a turn's time goes.

The workload is the peers' (`../shared/peers/run.sh`): S concurrent sessions, each playing T
sequential turns through the gateway's HTTP API and SSE stream, heuristic backend. For each
session count it prints turn latency p50/p95/p99 and turns/s, and where the time went: each
service's handler time per event (from its `planwire_handler_seconds`), Redis commands per
turn (Valkey's own command counters) and CPU milliseconds per turn of every process. The
broker and Redis round trips are measured in the same run, so a turn can be read as a number
of round trips. Then idle CPU, memory and start time.

Speed targets live here, not in timed tests: run it before and after a change meant to be
faster, in the same sitting, and compare the figures (ratios travel between machines;
absolute times do not).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from redis.asyncio import Redis

from planwire.client import SessionClient, StreamEvent

if TYPE_CHECKING:
    from planwire.stack import EmbeddedStack
    from shared.model.factory import ModelSettings

TURN = "Watch my Gmail for invoices and post a note to Slack for each one."
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
HANDLER_METRIC = "planwire_handler_seconds"


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes used so far (Linux /proc)."""
    return sum(cpu_by_pid(pids).values())


def cpu_by_pid(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each process (absent when it is gone)."""
    found = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            found[pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        except (OSError, IndexError):
            continue
    return found


def rss_mb(pids: list[int]) -> float:
    """Resident memory of the processes, in MB."""
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB
        except (OSError, IndexError):
            continue
    return total / 1024


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of `values` by nearest rank, as the peers compute it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def parse_handler_metrics(text: str) -> dict[tuple[str, str], tuple[float, float]]:
    """`(service, event) -> (seconds, count)` from a Prometheus text page's handler histogram."""
    found: dict[tuple[str, str], list[float]] = {}
    for line in text.splitlines():
        for suffix, slot in (("_sum{", 0), ("_count{", 1)):
            if line.startswith(HANDLER_METRIC + suffix):
                labels = dict(
                    part.split("=", 1)
                    for part in line[line.index("{") + 1 : line.rindex("}")].split(",")
                    if "=" in part
                )
                key = (labels.get("service", "").strip('"'), labels.get("event", "").strip('"'))
                found.setdefault(key, [0.0, 0.0])[slot] += float(line.rsplit(" ", 1)[1])
    return {key: (pair[0], pair[1]) for key, pair in found.items()}


async def handler_totals(
    metrics_urls: dict[str, str],
) -> dict[tuple[str, str], tuple[float, float]]:
    """Every service's handler time and count so far, summed by (service, event)."""
    totals: dict[tuple[str, str], tuple[float, float]] = {}
    async with httpx.AsyncClient(timeout=5.0) as http:
        for url in metrics_urls.values():
            try:
                page = (await http.get(url)).text
            except httpx.HTTPError:
                continue
            for key, (seconds, count) in parse_handler_metrics(page).items():
                old = totals.get(key, (0.0, 0.0))
                totals[key] = (old[0] + seconds, old[1] + count)
    return totals


async def redis_commands(redis_url: str) -> dict[str, int]:
    """Valkey's command counters so far, by command (`INFO commandstats`)."""
    client = Redis.from_url(redis_url)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


async def redis_rtt_ms(redis_url: str, rounds: int = 200) -> float:
    """p50 of one PING round trip to the stack's Valkey."""
    client = Redis.from_url(redis_url)
    times = []
    try:
        for _ in range(rounds):
            started = time.perf_counter()
            await client.ping()
            times.append(time.perf_counter() - started)
    finally:
        await client.aclose()
    return statistics.median(times) * 1000


async def _probe_pair(bootstrap: str, prefix: str, fetch_max_wait_ms: int) -> tuple[Any, Any, str]:
    """A started producer and consumer on a fresh one-partition topic, for a round-trip probe."""
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    from shared.bus import ensure_topics

    topic = f"bench.{prefix}.{uuid.uuid4().hex[:8]}"
    await ensure_topics(bootstrap, [(topic, 1)])
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=False)
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        auto_offset_reset="latest",
        fetch_max_wait_ms=fetch_max_wait_ms,
    )
    await producer.start()
    await consumer.start()
    return producer, consumer, topic


async def broker_rtt_ms(bootstrap: str, fetch_max_wait_ms: int, rounds: int = 30) -> float:
    """p50 of produce -> consume through the broker at the stack's fetch wait (one partition)."""
    producer, consumer, topic = await _probe_pair(bootstrap, "rtt", fetch_max_wait_ms)
    times = []
    try:
        # Until the consumer has its position, a record may arrive before it looks.
        await consumer.seek_to_end()
        for i in range(rounds + 1):
            started = time.perf_counter()
            await producer.send_and_wait(topic, str(i).encode())
            async with asyncio.timeout(10):
                while True:
                    record = await consumer.getone()
                    if record.value == str(i).encode():
                        break
            if i:  # the first round includes the consumer's first fetch set-up
                times.append(time.perf_counter() - started)
    finally:
        await consumer.stop()
        await producer.stop()
    return statistics.median(times) * 1000


async def parked_rtt_ms(bootstrap: str, fetch_max_wait_ms: int, rounds: int = 20) -> float:
    """p50 of produce -> consume when the consumer's fetch is already parked at the broker.

    What a hop in the stack pays: its consumer waits in a fetch while the record arrives.
    `broker_rtt_ms` produces first and only then asks for the record, so its fetch finds the
    record already there; an embedded broker that answers a parked fetch late (Tansu: at half
    the wait, measured) shows the difference here. Records go out at spread points of the wait.
    """
    producer, consumer, topic = await _probe_pair(bootstrap, "parked", fetch_max_wait_ms)
    arrived: asyncio.Queue[tuple[bytes, float]] = asyncio.Queue()

    async def read() -> None:
        while True:
            record = await consumer.getone()
            arrived.put_nowait((record.value or b"", time.perf_counter()))

    times = []
    reader = asyncio.create_task(read())
    try:
        await consumer.seek_to_end()
        await asyncio.sleep(fetch_max_wait_ms / 1000)  # a fetch is parked by now
        for i in range(rounds):
            # Past the previous answer, at a point spread over the wait (never a multiple of it).
            await asyncio.sleep(fetch_max_wait_ms / 1000 * (1.0 + (i * 0.37) % 1.0))
            started = time.perf_counter()
            await producer.send_and_wait(topic, str(i).encode())
            async with asyncio.timeout(10):
                while (found := await arrived.get())[0] != str(i).encode():
                    pass
            times.append(found[1] - started)
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        await consumer.stop()
        await producer.stop()
    return statistics.median(times) * 1000


class Progress:
    """A progress bar on stderr while sessions play (rich; drawn only on a terminal)."""

    def __init__(self, total: int, label: str) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import (
            Progress as Bar,
        )

        self.total, self.done = total, 0
        self._bar = Bar(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("turns"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            disable=not sys.stderr.isatty(),
        )
        self._task = self._bar.add_task(label, total=total)

    def __enter__(self) -> Progress:
        self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()

    def step(self) -> None:
        self.done += 1
        self._bar.advance(self._task)


def _of_turn(turn_id: str, *types: str) -> Callable[[StreamEvent], bool]:
    """Matches a stream event of one of `types` that belongs to the turn."""
    return lambda event: event.type in types and event.data.get("turn_id") == turn_id


async def play_sessions(
    gateway_url: str, sessions: int, turns: int, first_pieces: list[float] | None = None
) -> tuple[list[float], float]:
    """S sessions x T sequential turns at once; returns each turn's latency and the wall time.

    `first_pieces`: also collect, for each turn whose reply was streamed, the time from the
    POST to the reply's first piece (`reply.delta`) on the stream."""
    progress = Progress(sessions * turns, f"{sessions:>3} sessions")
    clients = [SessionClient(gateway_url, timeout_s=120.0) for _ in range(sessions)]
    for client in clients:
        await client.__aenter__()
    latencies: list[float] = []

    async def play(client: SessionClient) -> None:
        for _ in range(turns):
            started = time.perf_counter()
            turn_id = await client.send(TURN)
            first = await client.wait_for(_of_turn(turn_id, "reply.delta", "reply"))
            if first.type == "reply.delta":
                if first_pieces is not None:
                    first_pieces.append(time.perf_counter() - started)
                await client.wait_for(_of_turn(turn_id, "reply"))
            latencies.append(time.perf_counter() - started)
            progress.step()

    try:
        with progress:
            started = time.perf_counter()
            await asyncio.gather(*(play(c) for c in clients))
            wall = time.perf_counter() - started
    finally:
        for client in clients:
            await client.__aexit__(None, None, None)
    return latencies, wall


async def measure_load(stack: EmbeddedStack, sessions: int, turns: int) -> dict[str, Any]:
    """One session count: latency, throughput, and per-turn handler time, Redis and CPU."""
    names = {c.pid: c.name for c in [*stack.infra, *stack.services] if c.popen is not None}
    handlers_before = await handler_totals(stack.metrics_urls)
    redis_before = await redis_commands(stack.redis_url)
    cpu_before = cpu_by_pid(list(names))
    firsts: list[float] = []
    latencies, wall = await play_sessions(stack.gateway_url, sessions, turns, firsts)
    cpu_after = cpu_by_pid(list(names))
    redis_after = await redis_commands(stack.redis_url)
    handlers_after = await handler_totals(stack.metrics_urls)
    played = len(latencies)
    cpu_ms = {
        names[pid]: round((cpu_after[pid] - cpu_before.get(pid, 0.0)) * 1000 / played, 2)
        for pid in cpu_after
    }
    commands = {
        name: round((calls - redis_before.get(name, 0)) / played, 2)
        for name, calls in redis_after.items()
        if calls - redis_before.get(name, 0) > 0
    }
    handlers = {}
    for (service, event), (seconds, count) in sorted(handlers_after.items()):
        old_seconds, old_count = handlers_before.get((service, event), (0.0, 0.0))
        if count > old_count:
            handlers[f"{service}/{event}"] = {
                "per_turn": round((count - old_count) / played, 2),
                "mean_ms": round((seconds - old_seconds) / (count - old_count) * 1000, 2),
            }
    return {
        "sessions": sessions,
        "turns": played,
        "turn_p50_ms": round(percentile(latencies, 0.50) * 1000, 1),
        "turn_p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
        "turn_p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "turns_per_s": round(played / wall, 1),
        # Turns whose reply a model streamed, and the p50 from the POST to its first piece.
        "streamed_turns": len(firsts),
        "first_piece_p50_ms": round(percentile(firsts, 0.50) * 1000, 1) if firsts else None,
        "cpu_ms_per_turn": round(sum(cpu_ms.values()), 2),
        "cpu_ms_per_turn_by_process": dict(sorted(cpu_ms.items(), key=lambda kv: -kv[1])),
        "redis_commands_per_turn": round(sum(commands.values()), 2),
        "redis_commands_by_name": dict(sorted(commands.items(), key=lambda kv: -kv[1])),
        "handler_ms_per_turn": round(
            sum(h["per_turn"] * h["mean_ms"] for h in handlers.values()), 2
        ),
        "handlers": handlers,
    }


async def handled_by_process(stack: EmbeddedStack, services: list[str]) -> dict[str, float]:
    """Events each process of these services has handled so far, by process name (replicas
    are `<name>`, `<name>-2`...): its own /metrics page's handler counts, summed."""
    from planwire.specs import replica_of

    found: dict[str, float] = {}
    async with httpx.AsyncClient(timeout=5.0) as http:
        for name, url in stack.metrics_urls.items():
            if not any(replica_of(name, service) for service in services):
                continue
            try:
                page = (await http.get(url)).text
            except httpx.HTTPError:
                continue
            found[name] = sum(count for _seconds, count in parse_handler_metrics(page).values())
    return found


# Every session is one open event stream of the one anonymous tenant: the gateway's public
# per-tenant cap (20 streams) would refuse the 21st session's stream, and its replies would
# never reach the bench. Its session rate (the embedded stack's 1,000 a minute) would refuse
# the sessions of a large run the same way. The bench measures the plumbing, not those
# limits (`planwire load` does).
BENCH_GATEWAY_ENV = {
    "PLANWIRE_MAX_STREAMS_PER_TENANT": "10000",
    "PLANWIRE_MAX_STREAMS_TOTAL": "10000",
    "PLANWIRE_RATE_SESSIONS_PER_MIN": "100000",
    "PLANWIRE_QUOTA_SESSIONS_PER_DAY": "1000000",
    "PLANWIRE_RATE_TURNS_PER_MIN": "1000000",
}

# Saturation search: sessions double until turns/s grows by less than this over the best.
SATURATION_GAIN = 1.05
SATURATION_MAX_SESSIONS = 256


async def _bench(
    stack: EmbeddedStack,
    sessions: list[int],
    turns: int,
    idle_s: float,
    *,
    saturate: bool = False,
    replicated: list[str] | None = None,
) -> dict[str, Any]:
    wait_ms = int(stack.env.get("PLANWIRE_FETCH_MAX_WAIT_MS", "500"))
    broker_rtt = await broker_rtt_ms(stack.bootstrap, wait_ms)
    turn_wait_ms = int(stack.env.get("PLANWIRE_TURN_FETCH_MAX_WAIT_MS", wait_ms))
    parked_rtt = await parked_rtt_ms(stack.bootstrap, turn_wait_ms)
    redis_rtt = await redis_rtt_ms(stack.redis_url)
    names = {c.pid: c.name for c in [*stack.infra, *stack.services] if c.popen is not None}
    quiet_idle = await idle_cpu(stack.pids, names, idle_s)  # no traffic yet: an idle stack
    # Warm-up (connections, first fetches); its first turn is the first after a quiet spell.
    warm_up, _ = await play_sessions(stack.gateway_url, 1, 2)
    handled_before = await handled_by_process(stack, replicated or [])
    loads = [await measure_load(stack, count, turns) for count in sessions]
    handled_after = await handled_by_process(stack, replicated or [])
    saturation = await _saturate(stack, loads, turns) if saturate else None
    pids = stack.pids
    busy_idle = await idle_cpu(pids, names, idle_s)  # just after traffic: still polling fast
    first = loads[0]
    figures = {
        "broker": stack.broker,
        "fetch_max_wait_ms": wait_ms,
        "broker_rtt_ms": round(broker_rtt, 2),
        "turn_fetch_max_wait_ms": turn_wait_ms,
        "parked_rtt_ms": round(parked_rtt, 2),
        "redis_rtt_ms": round(redis_rtt, 3),
        "turn_p50_ms": first["turn_p50_ms"],
        "first_piece_p50_ms": first["first_piece_p50_ms"],
        "turn_p99_ms": loads[-1]["turn_p99_ms"],
        "turns_per_s": max(load["turns_per_s"] for load in loads),
        "turn_to_broker_rtt_ratio": round(first["turn_p50_ms"] / max(broker_rtt, 1e-3), 1),
        "cpu_ms_per_turn": loads[-1]["cpu_ms_per_turn"],
        "redis_commands_per_turn": loads[-1]["redis_commands_per_turn"],
        "idle_cpu_pct": quiet_idle[0],
        "idle_cpu_pct_by_process": quiet_idle[1],
        "first_turn_after_quiet_ms": round(warm_up[0] * 1000, 1),
        "idle_after_traffic_cpu_pct": busy_idle[0],
        "idle_after_traffic_cpu_pct_by_process": busy_idle[1],
        "rss_mb": round(rss_mb(pids), 1),
        "processes": len(pids),
        "loads": loads,
    }
    if replicated:
        figures["handled_by_process"] = {
            name: round(count - handled_before.get(name, 0.0), 1)
            for name, count in sorted(handled_after.items())
        }
    if saturation is not None:
        figures |= saturation
    return figures


async def idle_cpu(
    pids: list[int], names: dict[int, str], idle_s: float
) -> tuple[float, dict[str, float]]:
    """CPU of the stack's processes over `idle_s` with no turns played, in % of one core: the
    total and by process, largest first."""
    before = cpu_by_pid(pids)
    await asyncio.sleep(idle_s)
    after = cpu_by_pid(pids)
    by_pid = {pid: (after[pid] - before.get(pid, 0.0)) / idle_s * 100 for pid in after}
    by_process = {
        names.get(pid, str(pid)): round(pct, 1)
        for pid, pct in sorted(by_pid.items(), key=lambda kv: -kv[1])
    }
    return round(sum(by_pid.values()), 1), by_process


async def _saturate(
    stack: EmbeddedStack, loads: list[dict[str, Any]], turns: int
) -> dict[str, Any]:
    """Double the sessions past the largest measured count until turns/s stops growing
    (less than SATURATION_GAIN over the best so far); the extra loads join `loads`."""
    best = max(loads, key=lambda load: load["turns_per_s"])
    count = max(load["sessions"] for load in loads)
    while count < SATURATION_MAX_SESSIONS:
        count *= 2
        load = await measure_load(stack, count, turns)
        loads.append(load)
        if load["turns_per_s"] < best["turns_per_s"] * SATURATION_GAIN:
            break
        best = load
    return {
        "saturation_turns_per_s": best["turns_per_s"],
        "saturation_sessions": best["sessions"],
    }


def run_bench(
    settings: ModelSettings,
    *,
    sessions: list[int] | None = None,
    turns: int = 10,
    idle_s: float = 10.0,
    json_path: Path | None = None,
    details: bool = True,
    log_dir: Path | None = None,
    model_latency_ms: float = 0.0,
    replicas: dict[str, int] | None = None,
    saturate: bool = False,
    first_token_ms: float = 0.0,
    token_ms: float = 0.0,
) -> dict[str, Any]:
    """Start the stack, measure, stop; prints the figures and returns them.

    `model_latency_ms`: every model call waits that long first (a simulated model, wrapped
    around the heuristic). `replicas`: then the same measurement on a second stack running
    that many processes of those services, and the throughput ratio between the two.
    """
    counts = sessions or [1, 20]
    env = {"PLANWIRE_MODEL_LATENCY_MS": str(model_latency_ms)} if model_latency_ms else {}
    if first_token_ms or token_ms:  # a simulated model that streams the conversation's reply
        env |= {
            "PLANWIRE_MODEL_FIRST_TOKEN_MS": str(first_token_ms),
            "PLANWIRE_MODEL_TOKEN_MS": str(token_ms),
        }
    figures = _measure_stack(settings, counts, turns, idle_s, env, {}, saturate, log_dir)
    figures["model_latency_ms"] = model_latency_ms
    figures["model_first_token_ms"], figures["model_token_ms"] = first_token_ms, token_ms
    if replicas:
        scaled = _measure_stack(settings, counts, turns, idle_s, env, replicas, saturate, log_dir)
        figures["replicated"] = {
            "replicas": replicas,
            **scaled,
            "turns_per_s_ratio": round(
                scaled["turns_per_s"] / max(figures["turns_per_s"], 1e-9), 2
            ),
        }
    print(report(figures, details=details))
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
    return figures


def _measure_stack(
    settings: ModelSettings,
    counts: list[int],
    turns: int,
    idle_s: float,
    env: dict[str, str],
    replicas: dict[str, int],
    saturate: bool,
    log_dir: Path | None,
) -> dict[str, Any]:
    """One embedded stack (with these replicas and this environment for every service)."""
    from planwire.specs import embedded_services
    from planwire.stack import EmbeddedStack

    service_env = {spec.name: dict(env) for spec in embedded_services(settings)}
    service_env["gateway"] |= BENCH_GATEWAY_ENV
    where = (
        log_dir / "-".join(f"{k}{v}" for k, v in replicas.items())
        if (log_dir and replicas)
        else log_dir
    )
    started = time.monotonic()
    with EmbeddedStack(
        settings, log_dir=where, service_env=service_env, replicas=replicas
    ) as stack:
        start_s = time.monotonic() - started
        figures = asyncio.run(
            _bench(stack, counts, turns, idle_s, saturate=saturate, replicated=list(replicas))
        )
    return {"start_s": round(start_s, 2), **figures}


def _first_piece_lines(figures: dict[str, Any]) -> list[str]:
    """The streamed replies' time to first piece, when a streaming model was simulated."""
    if not figures.get("model_first_token_ms") and not figures.get("model_token_ms"):
        return []
    first = figures["loads"][0]
    return [
        f"first_piece_p50_ms: {first.get('first_piece_p50_ms')} at {first['sessions']} "
        f"session(s), {first.get('streamed_turns')} of {first['turns']} turns streamed (model: "
        f"first token {figures['model_first_token_ms']} ms, then {figures['model_token_ms']} "
        "ms a token)"
    ]


def report(figures: dict[str, Any], *, details: bool = True) -> str:
    """The figures as text: a summary, one line per session count, then where time goes."""
    lines = [
        f"broker: {figures['broker']} (fetch wait {figures['fetch_max_wait_ms']} ms)",
        f"start_s: {figures['start_s']}",
        f"broker_rtt_ms: {figures['broker_rtt_ms']}  redis_rtt_ms: {figures['redis_rtt_ms']}",
        f"parked_rtt_ms: {figures.get('parked_rtt_ms')} (a fetch already waiting, at the turn "
        f"path's {figures.get('turn_fetch_max_wait_ms')} ms wait)",
        f"idle_cpu_pct: {figures['idle_cpu_pct']} (of one core, whole stack, before any turn)",
        "idle cpu %: "
        + ", ".join(f"{k} {v}" for k, v in figures.get("idle_cpu_pct_by_process", {}).items()),
        f"first_turn_after_quiet_ms: {figures.get('first_turn_after_quiet_ms')} (the first turn "
        "played, while every consumer polls at its quiet wait)",
        f"idle_after_traffic_cpu_pct: {figures.get('idle_after_traffic_cpu_pct')} (right after "
        "the turns, while consumers still poll at their busy waits)",
        "idle after traffic cpu %: "
        + ", ".join(
            f"{k} {v}" for k, v in figures.get("idle_after_traffic_cpu_pct_by_process", {}).items()
        ),
        f"rss_mb: {figures['rss_mb']} ({figures['processes']} processes)",
        f"turn_to_broker_rtt_ratio: {figures['turn_to_broker_rtt_ratio']} (turn p50 at "
        f"{figures['loads'][0]['sessions']} session(s) / broker round trip)",
        *_first_piece_lines(figures),
        "sessions  turns  p50_ms  p95_ms  p99_ms  turns/s  cpu_ms/turn  redis_cmds/turn  "
        "handler_ms/turn",
    ]
    for load in figures["loads"]:
        lines.append(
            f"{load['sessions']:>8}  {load['turns']:>5}  {load['turn_p50_ms']:>6}  "
            f"{load['turn_p95_ms']:>6}  {load['turn_p99_ms']:>6}  {load['turns_per_s']:>7}  "
            f"{load['cpu_ms_per_turn']:>11}  {load['redis_commands_per_turn']:>15}  "
            f"{load['handler_ms_per_turn']:>15}"
        )
    if "saturation_turns_per_s" in figures:
        lines.append(
            f"saturation: {figures['saturation_turns_per_s']} turns/s at "
            f"{figures['saturation_sessions']} sessions (more sessions did not add 5%)"
        )
    scaled = figures.get("replicated")
    if scaled:
        names = ",".join(f"{k}={v}" for k, v in scaled["replicas"].items())
        lines.append(
            f"-- replicas {names}, simulated model latency {figures['model_latency_ms']} ms --"
        )
        for load_1, load_n in zip(figures["loads"], scaled["loads"], strict=False):
            lines.append(
                f"{load_1['sessions']:>8} sessions: turns/s {load_1['turns_per_s']} with one, "
                f"{load_n['turns_per_s']} with replicas; p50 {load_1['turn_p50_ms']} -> "
                f"{load_n['turn_p50_ms']} ms"
            )
        lines.append(f"turns_per_s_ratio: {scaled['turns_per_s_ratio']} (replicas / one)")
        handled = ", ".join(f"{k} {v}" for k, v in scaled["handled_by_process"].items())
        lines.append(f"events handled per process under load: {handled}")
    if details:
        for load in figures["loads"]:
            lines.append(f"-- where the time goes at {load['sessions']} session(s), per turn --")
            cpu = ", ".join(f"{k} {v}" for k, v in load["cpu_ms_per_turn_by_process"].items())
            lines.append(f"cpu ms: {cpu}")
            cmds = ", ".join(f"{k} {v}" for k, v in load["redis_commands_by_name"].items())
            lines.append(f"redis commands: {cmds}")
            for name, handler in load["handlers"].items():
                lines.append(
                    f"handler {name}: {handler['per_turn']}/turn, mean {handler['mean_ms']} ms"
                )
    return "\n".join(lines)
