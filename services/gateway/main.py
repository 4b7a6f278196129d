"""Gateway service: HTTP API plus the consumer that feeds each session's event stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from prometheus_client import REGISTRY, make_asgi_app

from catalogue import load_catalogue
from planwire import topology
from schemas.turn import TurnReceived
from services.gateway import browser_auth, handlers, logic, routes
from services.gateway.metrics import phase_sampler
from services.gateway.store import SessionStore
from shared.service import Service
from shared.settings import InfraSettings
from shared.tracing import TraceRequests


class Settings(InfraSettings):
    """Gateway settings; api_keys maps a bearer key to its tenant (empty: open access)."""

    api_keys: dict[str, str] = {}
    phase_sample_s: float = 15.0
    # The annotator's setting (same variable, PLANWIRE_READY_THRESHOLD): the page draws it.
    ready_threshold: float = 0.8


WEB = Path(__file__).parent / "web"
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
    """Connect Redis and the broker; the consumers share one group across replicas."""
    async with service.opened() as opened:
        app.state.store, app.state.turns, app.state.api_keys = (
            SessionStore(opened.redis, settings.session_ttl_s),
            turns,
            settings.api_keys,
        )
        app.state.catalogue_view = logic.catalogue_view(load_catalogue(), settings.ready_threshold)
        broker.context.set_global("store", app.state.store)
        await broker.start()
        async with phase_sampler(opened.redis, settings.phase_sample_s):
            yield
        await broker.stop()


app = FastAPI(title="planwire gateway", version="1.0.0", lifespan=lifespan)
app.add_middleware(TraceRequests, service="gateway")  # a turn's trace starts at its request
app.include_router(routes.router)
app.include_router(browser_auth.router)
app.mount("/metrics", make_asgi_app(REGISTRY))
app.mount("/ui", StaticFiles(directory=WEB), name="ui")


@app.get("/", include_in_schema=False)
async def page() -> FileResponse:
    """The web page: chat, notes, confirmation, the plan and its progress (static files)."""
    return FileResponse(WEB / "index.html", headers=PAGE_HEADERS)


@app.get("/health", include_in_schema=False)
async def health() -> Response:
    """204 while the broker answers, 503 otherwise."""
    return Response(status_code=204 if await broker.ping(timeout=5.0) else 503)


@app.exception_handler(RequestValidationError)
async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
    """Bad HTTP input: a 422 with a readable message, not a stack trace."""
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return JSONResponse(
        {"detail": f"{where}: {first.get('msg', 'invalid request')}"}, status_code=422
    )


if __name__ == "__main__":
    service.serve(app)
