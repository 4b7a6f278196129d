"""The gateway's Kafka side over FastStream's in-memory broker and a real Valkey."""

from __future__ import annotations

import uuid

import pytest_asyncio
from faststream.kafka import TestKafkaBroker
from redis.asyncio import Redis

from schemas.plan import WorkflowFailed
from schemas.turn import ReplyGenerated
from services.gateway.main import service
from services.gateway.store import SessionStore
from tests.support.inmemory import TTL, deliver


@pytest_asyncio.fixture
async def gateway(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    store = SessionStore(redis, TTL)
    service.broker.context.set_global("store", store)  # as the gateway's lifespan does
    async with TestKafkaBroker(service.broker) as broker:
        yield broker, store
    await redis.aclose()


async def test_replies_and_failures_reach_the_users_stream_once_each(gateway):
    broker, store = gateway
    session_id = f"gw-{uuid.uuid4().hex[:10]}"
    await store.create(session_id, "acme")
    reply = ReplyGenerated(
        session_id=session_id,
        turn_id="t1",
        text="Which label?",
        reply_kind="question",
        phase="gathering",
    )
    await deliver(broker, reply)
    await deliver(broker, reply)  # redelivered: the stream keeps one copy
    await deliver(broker, WorkflowFailed(session_id=session_id, reason="Step 2 of 5 failed"))
    events = await store.read_outbound(session_id, "0", block_ms=10)
    assert [(kind, data.get("text") or data.get("reason")) for _, kind, data in events] == [
        ("reply", "Which label?"),
        ("workflow_failed", "Step 2 of 5 failed"),
    ]
    assert events[0][2]["event_id"] == str(reply.event_id)
