"""What the stack assumes of each embedded broker, checked against the broker itself.

`planwire.stack` declares per broker whether it takes the idempotent producer
(`BROKER_PRODUCER_ENV`) and what a kill loses (`KILL_LOSES`: while a kill loses anything, chaos
never kills the broker and `restart` refuses it). The last test asks whether a group member
killed without leaving is replaced, which every service started again after a crash needs.
These tests ask each broker, so a release that changes an answer fails a test instead of
leaving the stack with a wrong setting or a wrong warning (`BROKER_WARNINGS`).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError
from aiokafka.structs import OffsetAndMetadata

from planwire import probes
from planwire.procs import StackError
from planwire.stack import BROKER_CONSUMER_ENV, BROKER_PRODUCER_ENV, EmbeddedStack
from shared.bus import ensure_topics
from tests.e2e.test_stack import broker_topics

pytestmark = pytest.mark.e2e

TOPIC = "probe.records"
GROUP = "probe"
# Long enough for a broker that answers InitProducerId to have answered many times over.
IDEMPOTENT_WAIT_S = 15.0


@pytest.fixture(params=sorted(BROKER_CONSUMER_ENV))
async def broker(request, tmp_path, monkeypatch) -> AsyncIterator[EmbeddedStack]:
    """Only the broker (and Valkey) of an embedded stack, with one two-partition topic."""
    monkeypatch.setenv("PLANWIRE_EMBEDDED_BROKER", request.param)
    stack = EmbeddedStack(log_dir=tmp_path)
    await stack.astart([])
    try:
        await ensure_topics(stack.bootstrap, [(TOPIC, 2)])
        yield stack
    finally:
        await stack.astop()


def takes_idempotence(kind: str) -> bool:
    return BROKER_PRODUCER_ENV[kind].get("PLANWIRE_KAFKA_IDEMPOTENCE", "true") != "false"


async def send_idempotently(bootstrap: str) -> bool:
    """Whether an idempotent producer with acks=all gets one record acknowledged."""
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, enable_idempotence=True, acks="all", request_timeout_ms=5000
    )
    try:
        await producer.start()
        await asyncio.wait_for(producer.send_and_wait(TOPIC, b"once", key=b"k"), IDEMPOTENT_WAIT_S)
        return True
    except (KafkaError, TimeoutError):
        return False
    finally:
        await producer.stop()


async def test_the_idempotent_producer_is_on_exactly_where_the_broker_takes_it(broker):
    assert await send_idempotently(broker.bootstrap) is takes_idempotence(broker.broker)


async def produce(bootstrap: str, values: list[bytes]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for value in values:
            await producer.send_and_wait(TOPIC, value, partition=0)
    finally:
        await producer.stop()


def consumer(bootstrap: str) -> AIOKafkaConsumer:
    return AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=GROUP,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )


async def commit(bootstrap: str, offset: int) -> None:
    reader = consumer(bootstrap)
    await reader.start()
    try:
        reader.assign([TopicPartition(TOPIC, 0)])
        await reader.commit({TopicPartition(TOPIC, 0): OffsetAndMetadata(offset, "")})
    finally:
        await reader.stop()


async def read_back(bootstrap: str, count: int) -> tuple[list[bytes], int | None]:
    """The first `count` values of partition 0 from the start, and the group's commit there."""
    reader = consumer(bootstrap)
    await reader.start()
    try:
        part = TopicPartition(TOPIC, 0)
        reader.assign([part])
        committed = await reader.committed(part)
        await reader.seek_to_beginning(part)
        values: list[bytes] = []
        while len(values) < count:
            batch = await reader.getmany(part, timeout_ms=5000)
            if not batch:
                break
            values += [r.value for r in batch[part] if r.value is not None]
        return values, committed
    finally:
        await reader.stop()


async def kill_and_start_by_hand(stack: EmbeddedStack) -> None:
    """SIGKILL the broker, see `restart` refuse it, and start it again anyway."""
    stack.kill(stack.broker)
    with pytest.raises(StackError, match="a kill loses"):
        await stack.restart(stack.broker)
    child = stack.child(stack.broker)
    child.start()
    await probes.broker_ready(child, stack.bootstrap)


async def on_disk_since(data_dir: Path, moment: float, timeout_s: float = 10.0) -> None:
    """Wait until the broker has written a file under `data_dir` after `moment`."""

    def newest() -> float:
        return max((f.stat().st_mtime for f in data_dir.rglob("*") if f.is_file()), default=0)

    deadline = time.time() + timeout_s
    while newest() <= moment:
        assert time.time() < deadline, f"nothing written under {data_dir} in {timeout_s} s"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("broker", ["tansu"], indirect=True)
async def test_tansu_loses_every_topic_when_killed(broker):
    await produce(broker.bootstrap, [b"r0"])
    await kill_and_start_by_hand(broker)
    assert TOPIC not in await broker_topics(broker.bootstrap)


@pytest.mark.parametrize("broker", ["noida"], indirect=True)
async def test_noida_keeps_what_it_wrote_out_and_loses_what_it_had_only_acknowledged(broker):
    flushed = [b"r0", b"r1", b"r2"]
    await produce(broker.bootstrap, flushed)
    await commit(broker.bootstrap, 2)
    await on_disk_since(broker.log_dir / "broker-data", time.time())
    lost = 0
    for attempt in range(3):  # a write-out may fall between an acknowledgement and the kill
        fresh = [f"fresh{attempt}".encode()]
        await produce(broker.bootstrap, fresh)
        await kill_and_start_by_hand(broker)
        values, committed = await read_back(broker.bootstrap, len(flushed) + 1)
        assert values[: len(flushed)] == flushed and committed == 2
        if fresh[0] not in values:
            lost += 1
            break
    assert lost, "every record acknowledged right before a kill was kept"


MEMBER = """
import asyncio, sys
from aiokafka import AIOKafkaConsumer

async def main():
    bootstrap, topic, group, session_ms, heartbeat_ms = sys.argv[1:]
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
        session_timeout_ms=int(session_ms), heartbeat_interval_ms=int(heartbeat_ms))
    await consumer.start()
    while not consumer.assignment():
        await consumer.getmany(timeout_ms=200)
    print("assigned", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


async def assigned_within(bootstrap: str, env: dict[str, str], seconds: float) -> bool:
    """Whether a new member of GROUP is given partitions within `seconds`."""
    member = AIOKafkaConsumer(
        TOPIC,
        bootstrap_servers=bootstrap,
        group_id=GROUP,
        session_timeout_ms=int(env["PLANWIRE_CONSUMER_SESSION_TIMEOUT_MS"]),
        heartbeat_interval_ms=int(env["PLANWIRE_CONSUMER_HEARTBEAT_MS"]),
    )
    try:
        async with asyncio.timeout(seconds):  # start and getmany wait while the group rejoins
            await member.start()
            while not member.assignment():
                await member.getmany(timeout_ms=200)
        return True
    except TimeoutError:
        return False
    finally:
        await asyncio.wait_for(member.stop(), 30)


# Tansu hands a dead member's partitions on; noida-db 0.2.3 keeps the group waiting on it, so
# a service killed and started again never consumes (docs/performance.md section 20).
@pytest.mark.parametrize(
    ("broker", "replaced"), [("tansu", True), ("noida", False)], indirect=["broker"]
)
async def test_a_member_killed_without_leaving_is_replaced_where_the_broker_allows(
    broker, replaced
):
    env = BROKER_CONSUMER_ENV[broker.broker]
    args = [env["PLANWIRE_CONSUMER_SESSION_TIMEOUT_MS"], env["PLANWIRE_CONSUMER_HEARTBEAT_MS"]]
    first = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        MEMBER,
        broker.bootstrap,
        TOPIC,
        GROUP,
        *args,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert first.stdout is not None
        line = await asyncio.wait_for(first.stdout.readline(), 30)
        assert line.strip() == b"assigned"
    finally:
        first.kill()  # SIGKILL: no LeaveGroup, as a crashed service
        await first.wait()
    # Four session timeouts: long past the point where the dead member must be gone.
    wait_s = 4 * int(env["PLANWIRE_CONSUMER_SESSION_TIMEOUT_MS"]) / 1000
    assert await assigned_within(broker.bootstrap, env, wait_s) is replaced
