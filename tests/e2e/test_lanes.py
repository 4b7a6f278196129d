"""Lanes on the real embedded broker (shared/lanes.py): one consumer runs messages of
different keys side by side, keeps each key in order, never commits past a message that is
still running, retries a failure in its lane, and lets running messages end on a clean stop."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from aiokafka import TopicPartition
from faststream import Context

from shared.bus import consumer_options, ensure_topics, make_broker
from shared.commits import commit_on_stop
from shared.lanes import in_lanes
from shared.settings import InfraSettings
from tests.e2e.test_commits import committed

pytestmark = pytest.mark.e2e


class Seen:
    """What a handler saw: (key, n) in the order handled, and the most it ran at once."""

    def __init__(self) -> None:
        self.done: list[tuple[str, int]] = []
        self.running = self.most = 0

    def of(self, key: str) -> list[int]:
        return [n for k, n in self.done if k == key]


async def started(settings: InfraSettings, topic: str, handler: Any, *, lanes: int) -> Any:
    """A broker whose one subscriber (a group consumer of `topic`) runs `handler` in lanes."""
    broker = make_broker(settings, client_id=f"{topic}-test")
    subscriber = broker.subscriber(
        topic, **(consumer_options(settings, f"{topic}.group") | {"fetch_max_wait_ms": 50})
    )
    subscriber(handler)
    in_lanes(subscriber, lanes, settings.commit_interval_ms / 1000)
    commit_on_stop(subscriber)
    await broker.start()
    return broker


async def publish(settings: InfraSettings, topic: str, messages: list[tuple[str, int]]) -> None:
    sender = make_broker(settings, client_id=f"{topic}-sender")
    await sender.start()
    try:
        for key, n in messages:
            await sender.publish(f"{key}:{n}", topic, key=key.encode())
    finally:
        await sender.stop()


async def until(check: Any, timeout_s: float = 15.0) -> None:
    for _ in range(int(timeout_s / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)


async def fresh_topic(stack: Any, name: str) -> tuple[str, InfraSettings]:
    topic = f"{name}-{uuid.uuid4().hex[:8]}"
    await ensure_topics(stack.bootstrap, [(topic, 1)])
    settings = InfraSettings(
        kafka_bootstrap=stack.bootstrap,
        kafka_idempotence=False,
        commit_interval_ms=100,
        handler_attempts=1,
        handler_backoff_s=0.01,
    )
    return topic, settings


def interleaved(keys: str, count: int) -> list[tuple[str, int]]:
    return [(key, n) for n in range(count) for key in keys]


async def test_keys_run_side_by_side_and_each_key_in_order(stack):
    topic, settings = await fresh_topic(stack, "lanes")
    seen = Seen()

    async def handle(body: str) -> None:
        key, n = body.split(":")
        seen.running += 1
        seen.most = max(seen.most, seen.running)
        await asyncio.sleep(0.1)  # a model call
        seen.running -= 1
        seen.done.append((key, int(n)))

    broker = await started(settings, topic, handle, lanes=4)
    try:
        await publish(settings, topic, interleaved("abcd", 5))
        await until(lambda: len(seen.done) == 20)
        assert all(seen.of(key) == list(range(5)) for key in "abcd"), seen.done
        assert seen.most > 1  # one partition, one consumer: only lanes let two run at once
        assert seen.most <= 4
        await until(lambda: False, 0.3)  # past the commit interval
        assert await committed(stack.bootstrap, f"{topic}.group", TopicPartition(topic, 0)) == 20
    finally:
        await broker.stop()


async def test_nothing_past_a_running_message_is_committed(stack):
    topic, settings = await fresh_topic(stack, "lanes-open")
    release = asyncio.Event()
    seen = Seen()

    async def handle(body: str) -> None:
        key, n = body.split(":")
        if key == "slow":
            await release.wait()
        seen.done.append((key, int(n)))

    broker = await started(settings, topic, handle, lanes=4)
    group, tp = f"{topic}.group", TopicPartition(topic, 0)
    try:
        await publish(settings, topic, [("slow", 0), *interleaved("xy", 5)])
        await until(lambda: len(seen.done) == 10)
        assert sorted(seen.done) == sorted(interleaved("xy", 5))  # not held up by "slow"
        await until(lambda: False, 0.5)
        assert await committed(stack.bootstrap, group, tp) in (-1, 0)  # "slow" is still open
        release.set()
        await until(lambda: len(seen.done) == 11)
        await until(lambda: False, 0.3)
        assert await committed(stack.bootstrap, group, tp) == 11
    finally:
        release.set()
        await broker.stop()


async def test_a_failure_is_tried_again_in_its_lane_before_the_key_goes_on(stack):
    topic, settings = await fresh_topic(stack, "lanes-fail")
    seen, failed = Seen(), []

    async def handle(body: str, message: Any = Context()) -> None:
        key, n = body.split(":")
        if (key, n) == ("a", "1") and not failed:
            failed.append(message.raw_message.offset)
            raise RuntimeError("a transient failure on the first try of a:1")
        await asyncio.sleep(0.02)
        seen.done.append((key, int(n)))

    broker = await started(settings, topic, handle, lanes=4)
    try:
        await publish(settings, topic, interleaved("ab", 4))
        await until(lambda: len(seen.done) == 8)
        assert failed  # it failed once, and then:
        assert seen.of("a") == [0, 1, 2, 3]  # a:2 waited for a:1
        assert seen.of("b") == [0, 1, 2, 3]
        await until(lambda: False, 0.3)
        assert await committed(stack.bootstrap, f"{topic}.group", TopicPartition(topic, 0)) == 8
    finally:
        await broker.stop()


async def test_a_clean_stop_lets_running_messages_end_and_commits_them(stack):
    topic, settings = await fresh_topic(stack, "lanes-stop")
    settings = settings.model_copy(update={"commit_interval_ms": 600_000})  # only the stop
    seen, running = Seen(), asyncio.Event()

    async def handle(body: str) -> None:
        key, n = body.split(":")
        running.set()
        await asyncio.sleep(0.5)
        seen.done.append((key, int(n)))

    broker = await started(settings, topic, handle, lanes=4)
    try:
        await publish(settings, topic, [("a", 0), ("b", 0), ("c", 0)])
        await asyncio.wait_for(running.wait(), 15)
        await until(lambda: False, 0.1)
    finally:
        await broker.stop()
    assert sorted(seen.done) == [("a", 0), ("b", 0), ("c", 0)]  # none cut short
    assert await committed(stack.bootstrap, f"{topic}.group", TopicPartition(topic, 0)) == 3
