"""Which Host headers the gateway answers (services/gateway/hosts.py)."""

from __future__ import annotations

import pytest

from services.gateway.hosts import allowed_hosts, host_allowed


@pytest.mark.parametrize(
    ("host", "answered"),
    [
        ("localhost", True),
        ("localhost:8000", True),
        ("LOCALHOST:8000", True),
        ("127.0.0.1:53529", True),
        ("127.0.0.1", True),
        ("[::1]:8000", True),
        ("[::1]", True),
        ("evil.example", False),
        ("evil.example:8000", False),
        ("localhost.evil.example", False),
        ("127.0.0.1.nip.io:8000", False),
        ("[::2]:8000", False),
        ("", False),
        (None, False),
    ],
)
def test_a_keyless_loopback_gateway_answers_only_loopback_names(host, answered):
    assert host_allowed(host, allowed_hosts([], keyless_loopback=True)) is answered


def test_with_keys_or_beyond_loopback_any_name_is_answered_by_default():
    assert host_allowed("gateway.internal:8000", allowed_hosts([], keyless_loopback=False))


def test_configured_names_replace_the_default_and_a_star_answers_any():
    configured = allowed_hosts(["Planwire.Example.com"], keyless_loopback=True)
    assert host_allowed("planwire.example.com:443", configured)
    assert not host_allowed("localhost:8000", configured)
    assert host_allowed("anything:1", allowed_hosts(["*"], keyless_loopback=True))
