"""`planwire dlq` against the real broker and services: a parked turn is listed, shown,
redriven, and then answered."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from aiokafka import AIOKafkaProducer

from planwire.client import SessionClient
from schemas.turn import TurnReceived

pytestmark = pytest.mark.e2e


def planwire_dlq(bootstrap: str, *args: str) -> str:
    env = {**os.environ, "PLANWIRE_KAFKA_BOOTSTRAP": bootstrap}
    done = subprocess.run(
        [sys.executable, "-m", "planwire", "dlq", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def park_a_turn(bootstrap: str, event: TurnReceived) -> None:
    """What the consumer does when it gives up on a message: the letter, with its reason."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=False)
    await producer.start()
    headers = [
        ("x-dlq-reason", b"exhausted"),
        ("x-dlq-error", b"ConnectionError('redis failed over')"),
        ("x-dlq-topic", TurnReceived.topic.name.encode()),
    ]
    try:
        await producer.send_and_wait(
            TurnReceived.topic.dlq,
            event.model_dump_json().encode(),
            key=event.key(),
            headers=headers,
        )
    finally:
        await producer.stop()


async def test_a_parked_turn_is_listed_shown_redriven_and_answered(stack):
    dead_letters = TurnReceived.topic.dlq
    async with SessionClient(stack.gateway_url) as session:
        event = TurnReceived(
            session_id=session.session_id,
            turn_id="t-parked",
            text="Post new Stripe payments to Slack.",
            turn_seq=1,
        )
        await park_a_turn(stack.bootstrap, event)

        listed = await asyncio.to_thread(planwire_dlq, stack.bootstrap, "list")
        line = next(x for x in listed.splitlines() if x.startswith(dead_letters + "\t"))
        assert int(line.split("pending ")[1].split()[0]) >= 1
        shown = json.loads(
            await asyncio.to_thread(
                planwire_dlq, stack.bootstrap, "show", dead_letters, "--json", "--limit", "1000"
            )
        )
        mine = [x for x in shown if x["key"] == session.session_id]
        assert len(mine) == 1 and mine[0]["headers"]["x-dlq-reason"] == "exhausted"

        redriven = await asyncio.to_thread(planwire_dlq, stack.bootstrap, "redrive", dead_letters)
        assert redriven.startswith("redrove ")
        reply = await session.wait_for(
            lambda e: e.type == "reply" and e.data["turn_id"] == "t-parked", timeout_s=60
        )
        assert reply.data["text"]
    after = json.loads(
        await asyncio.to_thread(
            planwire_dlq, stack.bootstrap, "show", dead_letters, "--json", "--limit", "1000"
        )
    )
    assert not [x for x in after if x["key"] == session.session_id], "redriven once, not pending"
