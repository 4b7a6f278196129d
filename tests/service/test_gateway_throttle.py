"""Failed logins throttled per client address, on a real Valkey (services/gateway/throttle.py):
after the budget an address gets 429 with Retry-After, even with a right key; another
address, with the same tenant's key, is not affected."""

from __future__ import annotations

import httpx
import pytest_asyncio
from redis.asyncio import Redis

from services.gateway.throttle import FailedLogins
from tests.support.gateway_api import gateway_app

KEY = "key-acme-" + "a" * 40
LIMIT = 3


@pytest_asyncio.fixture
async def app(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    await redis.flushdb()
    app = gateway_app(redis, {KEY: "acme"})
    app.state.failed_logins = FailedLogins(redis, LIMIT, 60)
    yield app
    await redis.aclose()


def from_address(app, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://gateway")


async def list_sessions(http: httpx.AsyncClient, key: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return await http.get("/v1/sessions", headers=headers)


async def test_an_address_over_its_failed_logins_is_refused_even_a_right_key(app):
    async with from_address(app, "10.0.0.1") as attacker:
        guesses = [(await list_sessions(attacker, f"guess-{n}")).status_code for n in range(4)]
        assert guesses == [401] * LIMIT + [429]
        right = await list_sessions(attacker, KEY)  # not even checked: a right guess stays out
        assert right.status_code == 429
        assert 1 <= int(right.headers["retry-after"]) <= 60
        assert "too many failed logins" in right.json()["detail"]
        # No credential at all is a plain 401, neither counted nor throttled.
        assert (await list_sessions(attacker, None)).status_code == 401


async def test_the_same_tenant_from_another_address_is_not_locked_out(app):
    async with from_address(app, "10.0.0.1") as attacker:
        for n in range(LIMIT + 2):
            await list_sessions(attacker, f"guess-{n}")
    async with from_address(app, "10.0.0.2") as tenant:
        assert (await list_sessions(tenant, KEY)).status_code == 200
        assert (await list_sessions(tenant, "one typo")).status_code == 401
        assert (await list_sessions(tenant, KEY)).status_code == 200
