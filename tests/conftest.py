"""Test-wide setup: a terminated test run still stops every process it started, and no test
writes to the user's planwire data folder."""

from __future__ import annotations

import atexit
import itertools
import os
import signal
from pathlib import Path

import pytest

from tests.support import n8n_package


def _stop_and_exit(_signum: int, _frame: object) -> None:
    # Raising from a signal handler does not reliably unwind a running event loop, so
    # stop what the run started right here (every EmbeddedStack registered its stop() with
    # atexit) and leave at once, instead of orphaning brokers and services.
    atexit._run_exitfuncs()
    os._exit(143)


signal.signal(signal.SIGTERM, _stop_and_exit)
_COUNT = itertools.count()


@pytest.fixture(autouse=True)
def throwaway_data_dir(request, tmp_path_factory, monkeypatch):
    """`planwire up` and `demo` keep data in the user's folder: never while testing.

    Each test gets its own folder name (created only by a stack that uses it), so no test
    finds another's sessions and no test run writes to ~/.local/share/planwire.
    """
    name = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    base = tmp_path_factory.getbasetemp() / "planwire-data"
    monkeypatch.setenv("PLANWIRE_DATA_DIR", str(base / f"{next(_COUNT)}-{name}"))


@pytest.fixture(scope="session")
def n8n_nodes_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An unpacked n8n-nodes-base, fetched once per test run (tests/support/n8n_package.py)."""
    return n8n_package.fetch(tmp_path_factory.mktemp("n8n"))
