"""`planwire up --replicas`: more processes of a service, and partitions for them to share."""

from __future__ import annotations

import asyncio
import os
import queue
import signal
import subprocess
import sys
import threading

import httpx
import pytest
from aiokafka.admin import AIOKafkaAdminClient

from tests.e2e.test_stack import FAKE, ROOT, read_lines, running, wait_for_line

pytestmark = pytest.mark.e2e


async def partitions(bootstrap: str, topic: str) -> int:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        (described,) = await admin.describe_topics([topic])
        return len(described["partitions"])
    finally:
        await admin.close()


def test_up_starts_each_replica_and_gives_their_topics_a_partition_each():
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PLANWIRE_STACK_SERVICES": f"gateway={FAKE},trimmer={FAKE}",
    }
    argv = [sys.executable, "-m", "planwire", "up", "--replicas", "trimmer=6"]
    up = subprocess.Popen(
        argv, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=read_lines, args=(up.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        urls = [wait_for_line(lines, f"{name}:", seen) for name in ("trimmer", "trimmer-6")]
        bootstrap = wait_for_line(lines, "broker:", seen)
        pids = [int(p) for p in wait_for_line(lines, "pids:", seen).split()]
        for url in urls:
            assert httpx.get(f"{url}/health").status_code == 204
        # The trimmer reads the gateway's turns: 6 replicas need 6 partitions (embedded: 1);
        # a topic no replicated service reads keeps the one.
        assert asyncio.run(partitions(bootstrap, "gateway.turn-received.v1")) == 6
        assert asyncio.run(partitions(bootstrap, "annotator.notes-updated.v1")) == 1
    finally:
        up.send_signal(signal.SIGTERM)
        code = up.wait(30)
    assert code == 0, "\n".join(seen)
    # broker, valkey, the gateway and six trimmers; none left behind.
    assert len(pids) == 9 and [p for p in pids if running(p)] == []


def test_up_names_a_bad_replica_count():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "planwire", "up", "--replicas", "trimer=2"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "no service 'trimer'" in done.stderr, done.stderr
