"""`planwire bench`: figures for the embedded stack — start time, turn latency, idle CPU, memory.

Speed targets live here, not in timed tests: run it before and after a change meant to be
faster and compare the printed figures.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planwire.client import SessionClient

if TYPE_CHECKING:
    from shared.model.factory import ModelSettings

TURN = "Watch my Gmail for invoices and post a note to Slack for each one."
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes used so far (Linux /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError):
            continue
    return total / CLOCK_TICKS


def rss_mb(pids: list[int]) -> float:
    """Resident memory of the processes, in MB."""
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB
        except (OSError, IndexError):
            continue
    return total / 1024


async def turn_latencies(gateway_url: str, turns: int) -> list[float]:
    """Seconds from posting a message to its reply on the stream, for each turn."""
    latencies = []
    async with SessionClient(gateway_url) as session:
        await session.say(TURN)  # warm-up: connections, first fetches
        for _ in range(turns):
            started = time.perf_counter()
            await session.say(TURN)
            latencies.append(time.perf_counter() - started)
    return latencies


def run_bench(settings: ModelSettings, turns: int = 30, idle_s: float = 10.0) -> dict[str, Any]:
    """Start the stack, measure, stop; returns and prints the figures."""
    from planwire.stack import EmbeddedStack

    started = time.monotonic()
    with EmbeddedStack(settings) as stack:
        start_s = time.monotonic() - started
        latencies = asyncio.run(turn_latencies(stack.gateway_url, turns))
        before = cpu_seconds(stack.pids)
        time.sleep(idle_s)
        idle_cpu = (cpu_seconds(stack.pids) - before) / idle_s * 100
        memory, processes = rss_mb(stack.pids), len(stack.pids)
    figures = {
        "start_s": round(start_s, 2),
        "turn_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "turn_p95_ms": round(statistics.quantiles(latencies, n=20)[-1] * 1000, 1),
        "idle_cpu_pct_of_one_core": round(idle_cpu, 1),
        "rss_mb": round(memory, 1),
        "processes": processes,
    }
    for name, value in figures.items():
        print(f"{name}: {value}")
    return figures
