"""Valkey of the embedded stack requires its password (issue 32 item 7), over real sockets:
loopback is shared with every local user and every web page's requests, and Valkey holds
every tenant's sessions."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from redis.asyncio import Redis
from redis.exceptions import AuthenticationError, ResponseError

from planwire.datadir import PASSWORD_NAME

pytestmark = pytest.mark.e2e


async def test_valkey_refuses_a_client_without_the_password(stack):
    address = urlsplit(stack.redis_url)
    stranger = Redis(host=address.hostname, port=address.port)
    try:
        with pytest.raises((AuthenticationError, ResponseError), match=r"(?i)auth"):
            await stranger.get("pw:sessions:recent")
    finally:
        await stranger.aclose()
    guesser = Redis(host=address.hostname, port=address.port, password="not-the-password")
    try:
        with pytest.raises((AuthenticationError, ResponseError)):
            await guesser.ping()
    finally:
        await guesser.aclose()


async def test_the_services_use_the_password_kept_in_the_data_folder(stack):
    """The services get it through PLANWIRE_REDIS_URL: the gateway stores a new session."""
    stored = stack.data_dir / PASSWORD_NAME
    assert stored.stat().st_mode & 0o777 == 0o600
    assert urlsplit(stack.redis_url).password == stored.read_text().strip()
    assert "requirepass" not in " ".join(stack.child("valkey").argv)
    async with httpx.AsyncClient(timeout=30) as http:
        session = await http.post(stack.gateway_url + "/v1/sessions")
    assert session.status_code == 201
    async with Redis.from_url(stack.redis_url) as redis:
        assert await redis.ping()
