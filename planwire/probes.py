"""Readiness probes for the embedded stack's children: broker, Valkey, HTTP health, READY line.

Each probe polls until its deadline and checks on every round that the child is still
running, so a crash surfaces at once with the tail of its log instead of as a timeout.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable

import httpx
from aiokafka.admin import AIOKafkaAdminClient
from redis.asyncio import Redis

from planwire.procs import Child, StackError

POLL_S = 0.05


async def poll(
    child: Child, what: str, attempt: Callable[[], Awaitable[object]], timeout_s: float
) -> object:
    """Retry `attempt` until it returns something truthy; errors count as "not yet"."""
    deadline = time.monotonic() + timeout_s
    last: BaseException | None = None
    while time.monotonic() < deadline:
        child.check()
        try:
            result = await attempt()
            if result:
                return result
        except Exception as exc:
            last = exc
        await asyncio.sleep(POLL_S)
    raise StackError(
        f"{child.name}: {what} not ready after {timeout_s:.0f} s ({last!r}); log {child.log}:\n{child.tail()}"
    )


async def broker_ready(child: Child, bootstrap: str, timeout_s: float = 30.0) -> None:
    """Wait until the Kafka-protocol broker answers a metadata request."""

    host, port = bootstrap.rsplit(":", 1)

    async def attempt() -> bool:
        # A plain TCP connect first: aiokafka logs an ERROR for every refused connection.
        _, writer = await asyncio.open_connection(host, int(port))
        writer.close()
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=2000)
        await admin.start()
        try:
            await admin.list_topics()
            return True
        finally:
            await admin.close()

    await poll(child, f"broker at {bootstrap}", attempt, timeout_s)


async def valkey_ready(child: Child, url: str, timeout_s: float = 30.0) -> None:
    """Wait until Valkey answers PING."""

    async def attempt() -> bool:
        client = Redis.from_url(url, socket_connect_timeout=1)
        try:
            return bool(await client.ping())
        finally:
            await client.aclose()

    await poll(child, f"valkey at {without_password(url)}", attempt, timeout_s)


def without_password(url: str) -> str:
    """A Redis URL fit to print or log: `redis://:secret@host:port/0` -> `redis://host:port/0`."""
    return re.sub(r"//[^/@]*@", "//", url, count=1)


async def http_healthy(child: Child, base_url: str, timeout_s: float = 60.0) -> None:
    """Wait until `GET /ready` answers 2xx (the broker and Redis answer the service)."""
    async with httpx.AsyncClient(base_url=base_url, timeout=2.0) as http:

        async def attempt() -> bool:
            return (await http.get("/ready")).is_success

        await poll(child, f"{base_url}/ready", attempt, timeout_s)


async def ready_line(child: Child, prefix: str = "READY ", timeout_s: float = 120.0) -> str:
    """Wait for a line starting with `prefix` in the child's log; returns the rest of it."""

    async def attempt() -> str:
        for line in child.log.read_text(errors="replace").splitlines():
            if line.startswith(prefix):
                return line[len(prefix) :].strip()
        return ""

    return str(await poll(child, f"{prefix.strip()} line", attempt, timeout_s))


async def all_or_none(*coros: Awaitable[object]) -> None:
    """Await every coroutine; on the first failure cancel the rest and raise that failure."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    if not tasks:  # a stack started with no services
        return
    try:
        done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)  # reap the cancelled ones
    for task in done:
        if (error := task.exception()) is not None:
            raise error
