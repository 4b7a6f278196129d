"""One embedded stack (real Tansu, Valkey and service processes) shared by the e2e tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from planwire.specs import ServiceSpec
from planwire.stack import EmbeddedStack


@pytest.fixture(scope="session")
def stack():
    """The whole system on loopback with the heuristic backend; stopped after the session."""
    from shared.model.factory import ModelSettings

    with EmbeddedStack(ModelSettings(model="heuristic")) as running:
        yield running


@dataclass(frozen=True)
class SecuredGateway:
    """A second gateway on the same stack, with API keys and low limits."""

    url: str
    keys: dict[str, str]  # tenant -> key
    secret: bytes
    log: Path

    def headers(self, tenant: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[tenant]}"}


# Keys of 43 characters and more, the least the gateway takes (32 random bytes' worth).
SECURED_KEYS = {
    name: f"key-{name}-" + name[0] * 40
    for name in (
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "fuzz",
        "bystander",
        "victim",
        "attacker",
    )
}
SECURED_SECRET = "test-secret-" + "s" * 32
# Low limits so the tests reach them in a few requests; tests/e2e/test_security.py reads these.
SECURED_ENV = {
    "PLANWIRE_API_KEYS": json.dumps({key: tenant for tenant, key in SECURED_KEYS.items()}),
    "PLANWIRE_AUTH_SECRET": SECURED_SECRET,
    "PLANWIRE_AUTH_TOKEN_TTL_S": "60",
    "PLANWIRE_MAX_BODY_BYTES": "16384",
    "PLANWIRE_RATE_SESSIONS_PER_MIN": "12",
    "PLANWIRE_QUOTA_SESSIONS_PER_DAY": "1000",
    "PLANWIRE_RATE_TURNS_PER_MIN": "10",
    "PLANWIRE_MAX_STREAMS_PER_TENANT": "3",
    "PLANWIRE_MAX_STREAMS_TOTAL": "6",
    # These tests and the fuzz present hundreds of wrong keys from 127.0.0.1 on purpose; the
    # failed-login throttle is tested on a gateway of its own (test_security_hardening.py).
    "PLANWIRE_AUTH_FAILURES_PER_WINDOW": "1000000",
}


@pytest.fixture(scope="session")
def secured(stack) -> SecuredGateway:
    """The keyed gateway; the stack's own gateway stays anonymous on loopback."""
    spec = ServiceSpec("gateway-secured", "services.gateway.main", env=SECURED_ENV)
    url = stack.add_service(spec)
    return SecuredGateway(
        url, SECURED_KEYS, SECURED_SECRET.encode(), stack.log_dir / "gateway-secured.log"
    )


def pytest_terminal_summary(terminalreporter):
    """Say where the browser tests left their screenshots."""
    import sys

    web = sys.modules.get("tests.e2e.web")
    if web is not None and web.ARTIFACTS.exists():
        terminalreporter.write_line(f"browser test screenshots: {web.ARTIFACTS}")
