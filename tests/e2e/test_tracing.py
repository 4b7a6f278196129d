"""One trace from the gateway request to the saved workflow, read from the real Kafka headers.

The client sends its own W3C `traceparent` with the confirming message; every event that
message causes, in every service down to `workflow-completed`, must carry that trace id.
"""

from __future__ import annotations

import json
import secrets

import httpx
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from planwire.client import SessionClient
from planwire.specs import RUNNERS
from schemas.plan import RunStep
from schemas.registry import CONTRACTS
from tests.e2e.gathering import gather
from tests.e2e.test_prometheus import TURNS

pytestmark = pytest.mark.e2e

CONFIRM = "Yes, that's everything. Please build it."


async def session_records(bootstrap: str, session_id: str) -> list[dict]:
    """Every event of a session on every event and command topic: topic, turn, trace id."""
    names = [c.topic.name for c in CONTRACTS if c.topic] + [
        RunStep.topic_for(r).name for r in RUNNERS
    ]
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        await consumer.topics()
        parts = [
            TopicPartition(t, p) for t in names for p in consumer.partitions_for_topic(t) or ()
        ]
        consumer.assign(parts)
        await consumer.seek_to_beginning(*parts)
        ends = await consumer.end_offsets(parts)
        found = []
        while [tp for tp, end in ends.items() if await consumer.position(tp) < end]:
            for tp, batch in (await consumer.getmany(timeout_ms=1000)).items():
                found += [_record(tp.topic, m) for m in batch if m.key == session_id.encode()]
        return found
    finally:
        await consumer.stop()


def _record(topic: str, message) -> dict:
    headers = {k: v.decode() for k, v in message.headers}
    parent = headers.get("traceparent", "")
    return {
        "topic": topic,
        "turn_id": json.loads(message.value).get("turn_id"),
        "trace_id": parent.split("-")[1] if parent.count("-") == 3 else None,
    }


async def test_the_confirming_request_and_everything_it_causes_share_one_trace(stack):
    trace_id = secrets.token_hex(16)
    async with SessionClient(stack.gateway_url) as session:
        state, _ = await gather(session, TURNS)
        assert state["phase"] == "confirming"
        earlier = {e.data["turn_id"] for e in session.seen if e.type == "reply"}
        sent = await session.http.post(
            f"/v1/sessions/{session.session_id}/messages",
            json={"text": CONFIRM},
            headers={"traceparent": f"00-{trace_id}-{secrets.token_hex(8)}-01"},
        )
        confirm_turn = sent.json()["turn_id"]
        done = await session.wait_for(lambda e: e.type.startswith("workflow_"), timeout_s=120)
        assert done.type == "workflow_completed"
        records = await session_records(stack.bootstrap, session.session_id)

    # The dispatcher's events belong to the plan rather than a turn: everything that is not
    # an earlier gathering turn's was caused by the confirming message.
    caused = [r for r in records if r["turn_id"] not in earlier]
    topics = {r["topic"] for r in caused}
    # gateway, trimmer, classifier, planner, dispatcher, a specialist, and the saved workflow.
    for topic in (
        "gateway.turn-received.v1",
        "trimmer.context-trimmed.v1",
        "classifier.requirements-confirmed.v1",
        "planner.plan-compiled.v1",
        "specialist.step-completed.v1",
        "dispatcher.workflow-completed.v1",
    ):
        assert topic in topics, f"no {topic} event for the confirming turn: {sorted(topics)}"
    assert {r["trace_id"] for r in caused} == {trace_id}, caused

    # Each earlier turn is a trace of its own, shared by everything that turn caused.
    assert earlier and confirm_turn not in earlier
    for turn in earlier:
        ids = {r["trace_id"] for r in records if r["turn_id"] == turn}
        assert len(ids) == 1 and None not in ids and trace_id not in ids, (turn, ids)


async def test_the_gateway_times_turns_and_workflows_end_to_end(stack):
    async with SessionClient(stack.gateway_url) as session:
        await gather(session, TURNS)
        await session.say(CONFIRM)
        await session.wait_for(lambda e: e.type.startswith("workflow_"), timeout_s=120)
    # Summed over every gateway of the stack (other tests add some): they share one consumer
    # group, and the one owning the session's partition streams the reply and times it.
    counts: dict[str, float] = {}
    for name, url in stack.metrics_urls.items():
        if name.startswith("gateway"):
            for line in httpx.get(url).text.splitlines():
                if line.startswith(
                    ("planwire_turn_seconds_count", "planwire_workflow_seconds_count")
                ):
                    key, value = line.split()[0], float(line.split()[1])
                    counts[key] = counts.get(key, 0.0) + value
    assert counts["planwire_turn_seconds_count"] >= len(TURNS) + 1
    assert counts["planwire_workflow_seconds_count"] >= 1
