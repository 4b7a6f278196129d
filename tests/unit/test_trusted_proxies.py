"""Which peers' forwarded headers a service believes (`PLANWIRE_TRUSTED_PROXIES`)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.settings import InfraSettings


def test_only_loopback_is_trusted_unless_configured(monkeypatch):
    monkeypatch.delenv("PLANWIRE_TRUSTED_PROXIES", raising=False)
    assert InfraSettings().trusted_proxies == ["127.0.0.1", "::1"]
    monkeypatch.setenv("PLANWIRE_TRUSTED_PROXIES", '["10.0.0.0/8", "fd00::/8", "192.0.2.7"]')
    assert InfraSettings().trusted_proxies == ["10.0.0.0/8", "fd00::/8", "192.0.2.7"]


def test_a_mistyped_proxy_stops_the_service_instead_of_never_matching(monkeypatch):
    """uvicorn would keep `10.0.0.0/33` as a literal no peer ever equals, without a word."""
    monkeypatch.setenv("PLANWIRE_TRUSTED_PROXIES", '["10.0.0.0/33"]')
    with pytest.raises(ValidationError, match=r"10\.0\.0\.0/33"):
        InfraSettings()
