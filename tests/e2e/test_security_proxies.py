"""Forwarded headers believed from the configured proxies only (issue 32 item 7), over real
HTTP: behind a TLS-terminating proxy the cookie must still be `Secure` and each client must
keep its own failed-login budget, yet no client may pick its scheme or address itself.

Loopback has a whole /8, so a client bound to 127.0.0.3 plays the proxy and one bound to
127.0.0.4 a client reaching the gateway directly.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from planwire.specs import ServiceSpec
from tests.e2e.conftest import SECURED_KEYS

pytestmark = pytest.mark.e2e

PROXY, DIRECT = "127.0.0.3", "127.0.0.4"
FAILURES = 2  # per address per window, before a 429
PROXIED_ENV = {
    "PLANWIRE_API_KEYS": json.dumps({key: tenant for tenant, key in SECURED_KEYS.items()}),
    "PLANWIRE_TRUSTED_PROXIES": json.dumps([f"{PROXY}/32"]),
    "PLANWIRE_AUTH_FAILURES_PER_WINDOW": str(FAILURES),
    # A window far longer than the test, so no count starts over halfway through it.
    "PLANWIRE_AUTH_FAILURE_WINDOW_S": "86400",
}
KEY = {"Authorization": f"Bearer {SECURED_KEYS['alpha']}"}
WRONG = {"Authorization": "Bearer " + "w" * 43}


@pytest.fixture(scope="module")
def proxied(stack) -> str:
    """A keyed gateway that believes forwarded headers from PROXY only."""
    return stack.add_service(
        ServiceSpec("gateway-proxied", "services.gateway.main", env=PROXIED_ENV)
    )


async def client_from(address: str) -> httpx.AsyncClient:
    """A client whose connections come from `address`."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(transport=transport, timeout=30)


@pytest.fixture
async def via_proxy() -> AsyncIterator[httpx.AsyncClient]:
    async with await client_from(PROXY) as client:
        yield client


@pytest.fixture
async def direct() -> AsyncIterator[httpx.AsyncClient]:
    async with await client_from(DIRECT) as client:
        yield client


def secure(response: httpx.Response) -> bool:
    """Whether the login's cookie carries the `Secure` flag."""
    assert response.status_code == 204, response.text
    flags = [f.strip().lower() for f in response.headers["set-cookie"].split(";")]
    return "secure" in flags


async def test_the_cookie_is_secure_when_a_trusted_proxy_says_the_request_was_https(
    proxied, via_proxy, direct
):
    https = {**KEY, "X-Forwarded-Proto": "https"}
    assert secure(await via_proxy.post(proxied + "/auth/login", headers=https))
    assert not secure(await via_proxy.post(proxied + "/auth/login", headers=KEY))
    # The same header from anyone else is the client's word, not a proxy's.
    assert not secure(await direct.post(proxied + "/auth/login", headers=https))


async def test_by_default_only_loopback_is_a_trusted_proxy(secured):
    """The keyed test gateway sets no PLANWIRE_TRUSTED_PROXIES."""
    https = {**secured.headers("alpha"), "X-Forwarded-Proto": "https"}
    async with httpx.AsyncClient(timeout=30) as local:
        assert secure(await local.post(secured.url + "/auth/login", headers=https))
    async with await client_from(DIRECT) as other:
        assert not secure(await other.post(secured.url + "/auth/login", headers=https))


async def fail(client: httpx.AsyncClient, url: str, forwarded_for: str) -> int:
    """One wrong key, said to come from `forwarded_for`; the status it got."""
    headers = {**WRONG, "X-Forwarded-For": forwarded_for}
    return (await client.post(url + "/auth/login", headers=headers)).status_code


async def test_behind_a_trusted_proxy_each_client_has_its_own_failed_login_budget(
    proxied, via_proxy
):
    assert [await fail(via_proxy, proxied, "203.0.113.5") for _ in range(FAILURES)] == [401, 401]
    assert await fail(via_proxy, proxied, "203.0.113.5") == 429
    # Another client behind the same proxy is not locked out with the first.
    assert await fail(via_proxy, proxied, "203.0.113.6") == 401


async def test_a_client_cannot_escape_its_budget_by_claiming_another_address(proxied, direct):
    assert [await fail(direct, proxied, "198.51.100.7") for _ in range(FAILURES)] == [401, 401]
    # Its failures were counted against its own address, whatever it said.
    assert await fail(direct, proxied, "198.51.100.8") == 429
