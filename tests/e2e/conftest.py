"""One embedded stack (real Tansu, Valkey and service processes) shared by the e2e tests."""

from __future__ import annotations

import pytest

from planwire.stack import EmbeddedStack


@pytest.fixture(scope="session")
def stack():
    """The whole system on loopback with the heuristic backend; stopped after the session."""
    from shared.model.factory import ModelSettings

    with EmbeddedStack(ModelSettings(model="heuristic")) as running:
        yield running


def pytest_terminal_summary(terminalreporter):
    """Say where the browser tests left their screenshots."""
    import sys

    web = sys.modules.get("tests.e2e.web")
    if web is not None and web.ARTIFACTS.exists():
        terminalreporter.write_line(f"browser test screenshots: {web.ARTIFACTS}")
