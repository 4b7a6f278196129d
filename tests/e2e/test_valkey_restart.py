"""Valkey runs with its append-only file on: killed mid-session and restarted, it comes
back with the session, and the conversation goes on to a built workflow (issue 11)."""

from __future__ import annotations

import httpx
import pytest
from redis.asyncio import Redis

from planwire.client import SessionClient
from planwire.stack import EmbeddedStack
from shared.model.factory import ModelSettings

pytestmark = pytest.mark.e2e
BEFORE = [
    "When a new invoice PDF arrives in Gmail, pull the total out of it.",
    "Then append a row to a Google Sheets spreadsheet.",
]
AFTER = ["And post a note to Slack for each invoice.", "That's everything, please confirm."]


async def refusals_while_down(gateway_url: str, session_id: str) -> list[tuple[int, str, str]]:
    """Status, Retry-After and reason of a read, a new message and the event stream."""
    async with httpx.AsyncClient(base_url=gateway_url, timeout=10) as http:
        answers = [
            await http.get(f"/v1/sessions/{session_id}"),
            await http.post(f"/v1/sessions/{session_id}/messages", json={"text": "Also email me."}),
            await http.get(f"/v1/sessions/{session_id}/events"),
        ]
    return [(a.status_code, a.headers.get("Retry-After", ""), a.json()["detail"]) for a in answers]


async def test_a_session_survives_a_valkey_kill_and_completes():
    async with EmbeddedStack(ModelSettings(model="heuristic")) as stack:
        async with Redis.from_url(stack.redis_url) as redis:
            assert (await redis.config_get("appendonly"))["appendonly"] == "yes"
            assert (await redis.config_get("maxmemory-policy"))["maxmemory-policy"] == "noeviction"
        async with SessionClient(stack.gateway_url, timeout_s=90) as session:
            for text in BEFORE:
                await session.say(text)
            before = await session.state()
            stack.kill("valkey")  # SIGKILL: no shutdown save, only the AOF survives
            outage = await refusals_while_down(stack.gateway_url, session.session_id)
            await stack.restart("valkey")
            kept = await session.state()  # no 5xx: the pooled client reconnects
            assert kept["notes"] == before["notes"] and kept["phase"] == before["phase"]
            for text in AFTER:
                reply = await session.say(text)
            if reply.data["phase"] != "confirming":
                reply = await session.say("Please confirm what you will build.")
            assert reply.data["phase"] == "confirming"
            await session.say("Yes, build it.")
            done = await session.wait_for(lambda e: e.type.startswith("workflow_"))
            state = await session.state()
    # Meanwhile every request that needed Valkey was refused for now, so clients try again.
    assert outage == [(503, "1", "the session store is unavailable for now; try again shortly")] * 3
    assert done.type == "workflow_completed", done.data
    assert {"gmail", "google_sheets", "slack"} <= set(state["notes"]["mentioned_integrations"])
    replies = [e for e in session.seen if e.type == "reply"]
    assert len({e.data["turn_id"] for e in replies}) == len(replies)  # one reply per turn
