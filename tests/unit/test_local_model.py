"""The real local model: SmolLM2-135M through xllamacpp, in-process and as its own process."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest

from shared.model import ModelSettings, OpenAIModel, build_model
from shared.model.jsonschema_lite import validate
from shared.model.local import LocalModelServer, ModelFileMissing, find_gguf

pytestmark = pytest.mark.model

REPO = Path(__file__).resolve().parents[2]
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 20}},
    "required": ["answer"],
    "additionalProperties": False,
}

try:
    find_gguf()
except ModelFileMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)


def port_is_open(base_url: str) -> bool:
    url = urlparse(base_url)
    try:
        with socket.create_connection((url.hostname, url.port), timeout=1):
            return True
    except OSError:
        return False


async def test_a_structured_call_to_smollm2_is_schema_valid_and_counted():
    server = LocalModelServer()
    base_url = server.start()
    port = OpenAIModel(base_url, server.alias, "not-needed", timeout_s=30)
    try:
        started = time.perf_counter()
        result = await port.structured(
            "t_local",
            [{"role": "user", "content": "What is the capital of France? Answer in JSON."}],
            SCHEMA,
            fallback=lambda: {"answer": "fallback"},
            max_tokens=32,
        )
        elapsed = time.perf_counter() - started
    finally:
        await port.aclose()
        server.stop()
    print(f"\nstart {server.start_s:.2f}s, call {elapsed:.2f}s, {result}")
    assert result.outcome in ("ok", "repaired"), result
    validate(result.data, SCHEMA)
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert not port_is_open(base_url)


def test_the_server_module_announces_ready_and_exits_on_sigterm():
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "shared.model.local"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)  # never hang the suite
        assert ready, "no READY line within 60 s"
        line = proc.stdout.readline().strip()  # "" if the process died
        assert line.startswith("READY http://127.0.0.1:"), line
        base_url = line.split()[1]
        assert httpx.get(f"{base_url}/models", timeout=5).status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert not port_is_open(base_url)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_build_model_local_starts_and_stops_its_own_server():
    port = build_model(ModelSettings(model="local"))
    base_url = port.server.base_url
    assert port_is_open(base_url)
    await port.aclose()
    assert not port_is_open(base_url)
