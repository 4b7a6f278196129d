"""The gateway's HTTP routes on a bare FastAPI app over a real Redis, for service tests."""

from __future__ import annotations

from fastapi import FastAPI
from redis.asyncio import Redis

from services.gateway import auth, routes, stream, workflows
from services.gateway.limits import Limits
from services.gateway.store import SessionStore
from services.gateway.throttle import FailedLogins

TTL = 3600


def gateway_app(redis: Redis, keys: dict[str, str]) -> FastAPI:
    """The routes with the store, API keys (key -> tenant) and generous limits in app.state."""
    app = FastAPI()
    app.include_router(routes.router)
    app.include_router(workflows.router)
    app.include_router(stream.router)
    app.state.store = SessionStore(redis, TTL)
    app.state.auth = auth.Authenticator(auth.KeyRing(keys), b"s" * 32, token_ttl_s=60)
    app.state.limits = Limits(1000, 1000, 1000, TTL)
    app.state.failed_logins = FailedLogins(redis, 1000, 60)
    return app
