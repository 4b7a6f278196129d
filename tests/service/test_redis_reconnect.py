"""A pooled Redis client outlives a Redis restart: the first command after it succeeds on a
fresh connection instead of failing on the one Redis closed (issue 11: no 500 after a Valkey
restart)."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from planwire.stack import valkey_argv
from shared.redis import make_redis


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(port: int, data: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(valkey_argv(port, data), stdout=subprocess.DEVNULL)
    for _ in range(250):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server
        time.sleep(0.02)
    server.kill()
    raise RuntimeError("valkey did not start")


@pytest.fixture
def valkey(tmp_path):
    port = free_port()
    servers = [start(port, tmp_path)]

    def restart() -> None:
        servers[-1].kill()  # SIGKILL: every pooled connection dies with it
        servers[-1].wait()
        servers.append(start(port, tmp_path))

    yield f"redis://127.0.0.1:{port}/0", restart
    servers[-1].kill()
    servers[-1].wait()


async def test_the_first_command_after_a_restart_succeeds(valkey):
    url, restart = valkey
    redis = make_redis(url, max_connections=4)
    try:
        await redis.set("k", "kept")
        restart()
        assert await redis.get("k") == "kept"  # same pooled client, AOF brought the value back
    finally:
        await redis.aclose()


async def test_without_retries_the_stale_connection_fails(valkey):
    url, restart = valkey
    redis = make_redis(url, max_connections=4, retries=0)
    try:
        await redis.set("k", "kept")
        restart()
        with pytest.raises(RedisConnectionError):
            await redis.get("k")
    finally:
        await redis.aclose()


async def test_a_redis_that_stays_down_still_fails_after_the_retries():
    redis = make_redis(f"redis://127.0.0.1:{free_port()}/0", max_connections=2, retries=2)
    try:
        with pytest.raises(RedisConnectionError):
            await redis.get("k")
    finally:
        await redis.aclose()
