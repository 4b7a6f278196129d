"""Gateway service: HTTP API plus the consumer that feeds each session's event stream."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import httpx
from aiokafka.errors import KafkaConnectionError, KafkaTimeoutError
from fastapi import FastAPI, Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic_settings import SettingsConfigDict
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from catalog import load_catalogue
from schemas import topology
from schemas.turn import TurnReceived
from services.gateway import access, auth, handlers, logic, routes, stream, workflows
from services.gateway.hosts import HostGuard, allowed_hosts
from services.gateway.limits import BodyLimit, Limits, Refusal, StreamSlots
from services.gateway.metrics import phase_sampler
from services.gateway.outbox import OutboxHub
from services.gateway.store import SessionStore
from services.gateway.throttle import FailedLogins
from shared.app import PROBE_TIMEOUT_S, Check, reachable
from shared.redis import make_redis, redis_password
from shared.service import Service
from shared.settings import InfraSettings
from shared.tracing import TraceRequests


class Settings(InfraSettings):
    """Gateway settings (docs/security.md explains each one)."""

    # An empty variable (compose passes `${PLANWIRE_API_KEYS:-}`) means "not set".
    model_config = SettingsConfigDict(env_prefix="PLANWIRE_", extra="ignore", env_ignore_empty=True)

    # Bearer key (or "sha256:<hex>" of it) -> tenant. Empty: one anonymous tenant, which
    # the gateway accepts only on a loopback address or with allow_anonymous.
    api_keys: dict[str, str] = {}
    allow_anonymous: bool = False
    # Signs the browser cookie; random per process when empty (then every replica and every
    # restart has its own, and cookies do not survive either: set it for more than one).
    auth_secret: str = ""
    auth_token_ttl_s: int = 3600
    auth_cookie_secure: Literal["auto", "true", "false"] = "auto"
    # Failed credentials one client address may present per window (services/gateway/throttle.py).
    auth_failures_per_window: int = 10
    auth_failure_window_s: int = 60
    # Host names answered (services/gateway/hosts.py); empty: loopback names when keyless on
    # loopback, any otherwise.
    allowed_hosts: list[str] = []
    # Bounds (docs/security.md, "Limits"); rates are per tenant, shared by every replica.
    max_body_bytes: int = 32 * 1024
    rate_sessions_per_min: int = 30
    quota_sessions_per_day: int = 2_000
    rate_turns_per_min: int = 60
    max_streams_per_tenant: int = 20
    max_streams_total: int = 1_000
    idempotency_ttl_s: int = 24 * 3600
    phase_sample_s: float = 15.0
    # The annotator's setting (same variable, PLANWIRE_READY_THRESHOLD): the page draws it.
    ready_threshold: float = 0.8
    # Health URLs of the services a conversation needs (set by the embedded stack only, as a
    # JSON list): /ready says 503 while one does not answer, so a local user's gateway does
    # not look fine while a turn would wait for a dead annotator.
    ready_peers: list[str] = []
    # /docs, /redoc and /openapi.json describe every route to anyone, key or not: off in the
    # production overlay (docs/security.md); on by default for people trying the API.
    api_docs: bool = True


WEB = Path(__file__).parent / "web"
PEER_TIMEOUT_S = 1.0  # a stopped peer must not hold /ready up to the whole probe timeout
# The page loads only its own files and talks only to this origin.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


settings = Settings()
service = Service.declared(topology.node("gateway"), settings, handlers=handlers)
broker = service.broker
turns = service.publisher_of(TurnReceived)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Connect Redis and the broker; the consumer shares one group across replicas."""
    refusal = auth.startup_refusal(settings.http_host, settings.api_keys, settings.allow_anonymous)
    if refusal:
        raise SystemExit(refusal)
    app.state.auth = auth.Authenticator(
        auth.KeyRing(settings.api_keys),
        auth.secret_bytes(settings.auth_secret),
        settings.auth_token_ttl_s,
    )
    app.state.cookie_secure = settings.auth_cookie_secure
    app.state.limits = Limits(
        settings.rate_sessions_per_min,
        settings.quota_sessions_per_day,
        settings.rate_turns_per_min,
        settings.idempotency_ttl_s,
    )
    app.state.stream_slots = StreamSlots(
        settings.max_streams_per_tenant, settings.max_streams_total
    )
    async with service.opened() as opened:
        app.state.store, app.state.turns = (
            SessionStore(opened.redis, settings.session_ttl_s),
            turns,
        )
        app.state.failed_logins = FailedLogins(
            opened.redis, settings.auth_failures_per_window, settings.auth_failure_window_s
        )
        app.state.catalogue_view = logic.catalogue_view(load_catalogue(), settings.ready_threshold)
        broker.context.set_global("store", app.state.store)
        await service.adopt_offsets()
        await broker.start()
        async with (
            # One connection for the outbox hub's blocking read (services/gateway/outbox.py).
            contextlib.aclosing(
                make_redis(
                    settings.redis_url,
                    1,
                    retries=settings.redis_retries,
                    password=redis_password(settings),
                )
            ) as reader,
            OutboxHub(opened.redis, reader=reader).running() as app.state.outbox_hub,
            service.pace.running(),
            phase_sampler(app.state.store, settings.phase_sample_s),
        ):
            yield
        await broker.stop()


# HTTP tracing is TraceRequests' (below): FastAPI's own telemetry, on whenever a tracer
# provider is set, would add a second server span and a span per dependency to every request.
app = FastAPI(
    title="planwire gateway",
    version="1.0.0",
    lifespan=lifespan,
    telemetry={"tracing": False, "metrics": False, "logs": False},
    openapi_url="/openapi.json" if settings.api_docs else None,  # None: no /docs nor /redoc
)
app.add_middleware(TraceRequests, service="gateway")  # a turn's trace starts at its request
app.include_router(routes.router)
app.include_router(workflows.router)
app.include_router(stream.router)
app.include_router(access.router)
app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
keyless_loopback = not settings.api_keys and auth.is_loopback(settings.http_host)
app.add_middleware(HostGuard, allowed=allowed_hosts(settings.allowed_hosts, keyless_loopback))
app.mount("/ui", StaticFiles(directory=WEB), name="ui")


@app.get("/", include_in_schema=False)
async def page() -> FileResponse:
    """The web page: chat, notes, confirmation, the plan and its progress (static files)."""
    return FileResponse(WEB / "index.html", headers=PAGE_HEADERS)


@app.get("/health", include_in_schema=False)
async def health() -> Response:
    """Liveness: 204 whenever the process answers (an outage elsewhere never restarts it)."""
    return Response(status_code=204)


@app.get("/ready", include_in_schema=False)
async def ready() -> Response:
    """Readiness: 204 while the broker, Redis and any `ready_peers` answer, else 503."""
    store = getattr(app.state, "store", None)
    checks = [lambda: broker.ping(PROBE_TIMEOUT_S), *(peer(url) for url in settings.ready_peers)]
    ok = store is not None and await reachable(*checks, store.redis.ping)
    return Response(status_code=204 if ok else 503)


def peer(url: str) -> Check:
    """A readiness check: the service at `url` answers its /health within a second."""

    async def answers() -> bool:
        async with httpx.AsyncClient(timeout=PEER_TIMEOUT_S, trust_env=False) as http:
            return (await http.get(url)).is_success

    return answers


@app.exception_handler(RequestValidationError)
async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
    """Bad HTTP input: a 422 with a readable message, not a stack trace."""
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return JSONResponse(
        {"detail": f"{where}: {first.get('msg', 'invalid request')}"}, status_code=422
    )


# A dependency down or restarting is a refusal for now, not a server fault: a client that
# retries on 503 (as the session client and the page do) gets through once it is back.
UNAVAILABLE_RETRY_S = 1
UNAVAILABLE = {
    RedisConnectionError: "the session store",  # also Valkey loading its AOF after a restart
    RedisTimeoutError: "the session store",
    KafkaConnectionError: "the event bus",
    KafkaTimeoutError: "the event bus",
}


async def dependency_unavailable(request: Request, exc: Exception) -> Response:
    """Redis or the broker unreachable: a 503 with Retry-After, never a 500."""
    what = next(name for kind, name in UNAVAILABLE.items() if isinstance(exc, kind))
    detail = f"{what} is unavailable for now; try again shortly"
    return await http_exception_handler(
        request, routes.refused(Refusal(503, detail, UNAVAILABLE_RETRY_S))
    )


for _unavailable in UNAVAILABLE:
    app.add_exception_handler(_unavailable, dependency_unavailable)


if __name__ == "__main__":
    if refusal := auth.startup_refusal(
        settings.http_host, settings.api_keys, settings.allow_anonymous
    ):
        raise SystemExit(refusal)
    service.serve(app)
