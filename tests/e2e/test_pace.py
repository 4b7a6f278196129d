"""A consumer paced on the real embedded broker: quiet, it still gets its messages, and the
first one makes it poll at its busy wait again (shared/pace.py)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from shared.bus import consumer_options, ensure_topics, make_broker
from shared.pace import Pace, current_fetch_wait, looks_every
from shared.settings import InfraSettings

pytestmark = pytest.mark.e2e


async def until(condition, timeout_s: float = 10.0) -> None:
    for _ in range(int(timeout_s / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not within the time given")


async def new_topic(stack, name: str, *middlewares: Any) -> tuple[str, Any, Any, Any]:
    """A new one-partition topic; the settings, and a broker with a consumer of it waiting
    50 ms a fetch."""
    topic = f"{name}-{uuid.uuid4().hex[:8]}"
    await ensure_topics(stack.bootstrap, [(topic, 1)])
    settings = InfraSettings(kafka_bootstrap=stack.bootstrap, kafka_idempotence=False)
    broker = make_broker(settings, client_id=f"{name}-test", extra_middlewares=middlewares)
    subscriber = broker.subscriber(
        topic, **(consumer_options(settings, f"{topic}.group") | {"fetch_max_wait_ms": 50})
    )
    return topic, settings, broker, subscriber


async def test_a_quiet_consumer_gets_its_message_and_is_busy_again(stack):
    pace = Pace(quiet_ms=1000, quiet_after_s=0.5)
    topic, settings, broker, subscriber = await new_topic(stack, "pace", pace.middleware())
    got: list[str] = []

    @subscriber
    async def note(body: str) -> None:
        got.append(body)

    pace.add(subscriber, 50)
    sender = make_broker(settings, client_id="pace-sender")  # traffic from elsewhere
    await broker.start()
    await sender.start()
    try:
        async with pace.running():
            await until(lambda: current_fetch_wait(subscriber.consumer) == 1000)
            await sender.publish("hello", topic)
            await until(lambda: got == ["hello"])
            assert current_fetch_wait(subscriber.consumer) == 50
            await until(lambda: current_fetch_wait(subscriber.consumer) == 1000)
    finally:
        await sender.stop()
        await broker.stop()


async def test_a_fetcher_that_looks_for_work_rarely_still_fetches_as_each_record_is_taken(stack):
    # aiokafka's fetch routine wakes every 200 ms unprompted; the kit makes that once a second
    # (shared/pace.py, `looks_every`). Here it is half a minute: a chain of ten messages, each
    # published by the handler of the one before, must not wait for those looks.
    topic, _settings, broker, subscriber = await new_topic(stack, "looks")
    got: list[int] = []

    @subscriber
    async def relay(body: int) -> None:
        got.append(body)
        if body < 10:
            await broker.publish(body + 1, topic)

    looks_every(subscriber, 30_000)
    await broker.start()
    try:
        assert subscriber.consumer._fetcher._fetcher_timeout == 30.0
        await broker.publish(1, topic)
        await until(lambda: got == list(range(1, 11)), timeout_s=15.0)
    finally:
        await broker.stop()
