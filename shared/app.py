"""The ASGI shell every Kafka-driven service runs in: `/health`, `/ready`, AsyncAPI; and `serve`,
which also serves Prometheus's `/metrics` on a port of its own.

Probes as Kubernetes means them: `/health` (liveness) answers 204 whenever the process can
answer at all, so a broker or Redis outage never restarts every pod; `/ready` (readiness)
answers 204 only while the broker and Redis both answer, 503 otherwise, so a pod that
cannot work is taken out of rotation and put back by itself.

A process whose app has stopped does not stay to answer them: a start that fails, or an app
whose lifespan ends while the server runs, ends the process with a non-zero status (`serve`).

Metrics are unauthenticated and say how busy each tenant is, so they are never on the API
port, which may be public: `serve` answers them on `metrics_port` (unset: not at all), which
deployments keep inside the cluster (docs/security.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any

import uvicorn
from faststream.asgi import AsgiFastStream, AsgiResponse, get
from faststream.kafka import KafkaBroker
from faststream.specification import AsyncAPI
from prometheus_client import start_http_server
from uvicorn.lifespan.on import LifespanOn

from shared.logs import configure_logging
from shared.settings import InfraSettings

PROBE_TIMEOUT_S = 5.0
TICK_S = 1.0  # how often the server looks at its own state (uvicorn: 0.1 s)
STARTUP_FAILURE = 3  # the exit status uvicorn.run gives a server that did not start
log = logging.getLogger("planwire.server")
Check = Callable[[], Awaitable[bool]]


async def reachable(*checks: Check, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """True when every check answers true within the timeout (a raised error is a no)."""
    try:
        async with asyncio.timeout(timeout_s):
            return all(await asyncio.gather(*(check() for check in checks)))
    except Exception:
        return False


def probes(broker: KafkaBroker, *more: Check) -> list[tuple[str, Any]]:
    """`/health` (the process answers) and `/ready` (the broker and `more` answer)."""

    @get(description="Liveness: 204 whenever the process answers.")
    async def health(scope: Any) -> AsgiResponse:
        return AsgiResponse(b"", 204)

    @get(description="Readiness: 204 while the broker and Redis answer, else 503.")
    async def ready(scope: Any) -> AsgiResponse:
        ok = await reachable(lambda: broker.ping(PROBE_TIMEOUT_S), *more)
        return AsgiResponse(b"", 204 if ok else 503)

    return [("/health", health), ("/ready", ready)]


def build_app(
    broker: KafkaBroker,
    *,
    title: str,
    description: str,
    lifespan: Any = None,
    ready: tuple[Check, ...] = (),
) -> AsgiFastStream:
    """The service as an ASGI app with its probes (see the module docstring)."""
    return AsgiFastStream(
        broker,
        asgi_routes=probes(broker, *ready),
        lifespan=lifespan,
        specification=AsyncAPI(title=title, description=description, version="1.0.0"),
    )


class Server(uvicorn.Server):
    """uvicorn's server, looking at its own state once a `TICK_S` instead of ten times a second.

    uvicorn's main loop sleeps 0.1 s between looks (at `should_exit`, and at its Date header,
    refreshed once in ten): ten wake-ups a second in every idle process of the stack. This one
    sleeps `TICK_S` between looks and refreshes the header at each; a stop signal wakes it at
    once, so a stop is no slower.
    """

    wake: asyncio.Event | None = None
    loop: asyncio.AbstractEventLoop | None = None
    app_died = False  # the app's lifespan ended while the server ran (see `lifespan_ended`)

    async def main_loop(self) -> None:
        self.wake, self.loop = asyncio.Event(), asyncio.get_running_loop()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 10) % 864000  # uvicorn counts tenths: each look is a whole second
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), TICK_S)
            should_exit = await self.on_tick(counter) or self.lifespan_ended()

    def lifespan_ended(self) -> bool:
        """True once the app's lifespan has ended on its own while serving.

        FastStream reports its start complete *before* it starts the broker, so a broker or
        producer that then fails to start (a refused `InitProducerId`) ends the app's lifespan
        after uvicorn took the start as done: uvicorn logs it and serves on, `/health` 204
        with nothing consuming, a zombie no liveness probe restarts. Only a shutdown asks the
        lifespan to end, so an ended one while serving is the app gone.
        """
        lifespan = getattr(self, "lifespan", None)
        ended = isinstance(lifespan, LifespanOn) and (
            lifespan.error_occurred or lifespan.shutdown_event.is_set()
        )
        if ended and not self.app_died:
            self.app_died = True
            log.error("the app stopped while serving (see the error above); exiting")
        return ended

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self.loop is not None and self.wake is not None:
            self.loop.call_soon_threadsafe(self.wake.set)


def serve(app: Any, settings: InfraSettings, name: str = "planwire") -> None:
    """Run an ASGI app under uvicorn until SIGTERM or Ctrl-C."""
    configure_logging(settings.log_level, settings.log_format, name)
    serve_metrics(settings)
    config = uvicorn.Config(
        app,
        host=settings.http_host,
        port=settings.http_port,
        log_level="warning",
        lifespan="on",
        # Forwarded headers only from the configured proxies (uvicorn's default reads
        # FORWARDED_ALLOW_IPS, which no deployment here sets).
        proxy_headers=True,
        forwarded_allow_ips=settings.trusted_proxies,
    )
    server = Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    # As uvicorn.run, a failed start is the process's failure; so is an app that died after.
    if not server.started or server.app_died:
        sys.exit(STARTUP_FAILURE)


def serve_metrics(settings: InfraSettings) -> None:
    """`/metrics` on `settings.metrics_port` in a thread of its own (prometheus_client's
    server); a port that cannot be had ends the process, as a failed API port would."""
    if settings.metrics_port is None:
        return
    try:
        start_http_server(settings.metrics_port, settings.http_host)
    except OSError as error:
        log.error("cannot serve metrics on port %s: %s", settings.metrics_port, error)
        sys.exit(STARTUP_FAILURE)
