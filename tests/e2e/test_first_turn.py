"""A first turn end to end: HTTP in, real Tansu and Valkey, SSE out, notes in Redis."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from redis.asyncio import Redis

from planwire.client import SessionClient
from schemas.turn import Notes, TurnReceived
from shared.redis import session_key

pytestmark = pytest.mark.e2e


async def notes_in_redis(redis_url: str, session_id: str) -> Notes:
    redis = Redis.from_url(redis_url, decode_responses=True)
    try:
        return Notes.model_validate_json(await redis.get(session_key(session_id, "notes")))
    finally:
        await redis.aclose()


async def settled_transcript(session: SessionClient, lines: int) -> list[dict]:
    """The transcript once the trimmer has recorded `lines` lines (replies land asynchronously)."""
    for _ in range(50):
        transcript = (await session.state())["transcript"]
        if len(transcript) >= lines:
            return transcript
        await asyncio.sleep(0.1)
    return transcript


async def test_turns_are_answered_over_sse_and_noted_in_redis(stack):
    async with SessionClient(stack.gateway_url) as session:
        first = await session.say("Watch my Gmail inbox for invoices.")
        second = await session.say("Post a short note to Slack for each one.")
        notes = await notes_in_redis(stack.redis_url, session.session_id)
        transcript = await settled_transcript(session, 4)
    assert first.data["kind"] == "question" and second.data["text"]
    assert {"gmail", "slack"} <= set(notes.mentioned_integrations)
    assert notes.version == 2
    assert [m["role"] for m in transcript] == ["user", "assistant", "user", "assistant"]


async def test_bad_http_input_gets_a_4xx_with_a_message(stack):
    async with httpx.AsyncClient(base_url=stack.gateway_url) as http:
        missing = await http.post("/v1/sessions/nosuchsession1/messages", json={"text": "hi"})
        session_id = (await http.post("/v1/sessions")).json()["session_id"]
        empty = await http.post(f"/v1/sessions/{session_id}/messages", json={"text": "   "})
        huge = await http.post(f"/v1/sessions/{session_id}/messages", json={"text": "x" * 9000})
        no_json = await http.post(f"/v1/sessions/{session_id}/messages", content=b"not json")
    assert missing.status_code == 404 and "no session" in missing.json()["detail"]
    assert empty.status_code == 422 and "empty" in empty.json()["detail"]
    assert huge.status_code == 422 and "8192" in huge.json()["detail"]
    assert no_json.status_code == 422 and no_json.json()["detail"]


async def read_topic(bootstrap: str, topic: str, want: int) -> list:
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", group_id=None
    )
    await consumer.start()
    records: list = []
    try:
        for _ in range(40):
            for batch in (await consumer.getmany(timeout_ms=500)).values():
                records.extend(batch)
            if len(records) >= want:
                break
    finally:
        await consumer.stop()
    return records


async def test_poison_messages_go_to_the_dlq_and_the_next_turn_is_answered(stack):
    producer = AIOKafkaProducer(bootstrap_servers=stack.bootstrap, enable_idempotence=False)
    await producer.start()
    async with SessionClient(stack.gateway_url) as session:
        key = session.session_id.encode()
        await producer.send_and_wait(TurnReceived.topic.name, b"\xff not json at all", key=key)
        bad = json.dumps({"session_id": session.session_id, "text": 42}).encode()
        await producer.send_and_wait(TurnReceived.topic.name, bad, key=key)
        await producer.stop()
        reply = await session.say("Send an SMS when a Stripe payment fails.")
    dead = [r for r in await read_topic(stack.bootstrap, TurnReceived.topic.dlq, 2) if r.key == key]
    assert {r.value for r in dead} == {b"\xff not json at all", bad}
    assert all(dict(r.headers)["x-dlq-reason"] == b"schema" for r in dead)
    assert reply.data["text"]


async def test_a_turn_delivered_twice_is_appended_once(stack):
    async with SessionClient(stack.gateway_url) as session:
        event = TurnReceived(
            session_id=session.session_id,
            turn_id="t-dup",
            text="Copy new Trello cards to Notion.",
            # Near the gateway's own numbering: the stored transcript keeps a window of the
            # newest turns (PLANWIRE_TRANSCRIPT_KEEP_TURNS), and turn 99 would push turn 1 out.
            turn_seq=5,
        )
        producer = AIOKafkaProducer(bootstrap_servers=stack.bootstrap, enable_idempotence=False)
        await producer.start()
        for _ in range(2):
            await producer.send_and_wait(
                TurnReceived.topic.name, event.model_dump_json().encode(), key=event.key()
            )
        await producer.stop()
        await session.wait_for(lambda e: e.type == "reply" and e.data["turn_id"] == "t-dup")
        await session.say("And mirror them into Airtable.")
        transcript = await settled_transcript(session, 4)
    user_lines = [m["text"] for m in transcript if m["role"] == "user"]
    assert sorted(user_lines) == [
        "And mirror them into Airtable.",
        "Copy new Trello cards to Notion.",
    ]
