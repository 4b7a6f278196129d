"""A posted message retried under its Idempotency-Key after the gateway died mid-request
(issue 11): the turn is published, numbered once, and never published twice."""

from __future__ import annotations

import contextlib
from typing import Any

import httpx
import pytest_asyncio
from redis.asyncio import Redis

from schemas.turn import Phase
from services.gateway.store import SessionStore
from state import session
from tests.support.gateway_api import gateway_app

HEADERS = {"Authorization": "Bearer key-acme"}


class Turns:
    """The gateway's TurnReceived publisher, recording what left; it can be made to die."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.dies = False

    async def publish(self, event: Any, key: bytes | None = None) -> None:
        if self.dies:
            raise ConnectionError("the gateway died before publishing")
        self.sent.append(event)


@pytest_asyncio.fixture
async def api(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    app = gateway_app(redis, {"key-acme": "acme"})
    app.state.turns = Turns()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        created = await client.post("/v1/sessions", headers=HEADERS)
        yield client, app.state.turns, created.json()["session_id"]
    await redis.aclose()


async def post(client: httpx.AsyncClient, session_id: str, text: str, key: str) -> httpx.Response:
    headers = {**HEADERS, "Idempotency-Key": key}
    return await client.post(
        f"/v1/sessions/{session_id}/messages", json={"text": text}, headers=headers
    )


async def test_a_retry_publishes_the_turn_a_dead_gateway_never_sent(api, monkeypatch):
    client, turns, session_id = api

    async def dying(*_args: Any) -> None:
        raise ConnectionError("the gateway died here")

    turns.dies = True
    with monkeypatch.context() as patch:
        patch.setattr(SessionStore, "forget", dying)  # dying, it cannot clean up either
        with contextlib.suppress(ConnectionError):
            await post(client, session_id, "Watch Gmail for invoices.", "turn-1")
    assert turns.sent == []
    turns.dies = False

    again = await post(client, session_id, "Watch Gmail for invoices.", "turn-1")
    assert again.status_code == 202
    assert [(e.turn_id, e.turn_seq) for e in turns.sent] == [(again.json()["turn_id"], 1)]
    assert str(turns.sent[0].event_id) == again.json()["event_id"]

    following = await post(client, session_id, "Then add a row to a sheet.", "turn-2")
    assert following.status_code == 202
    assert [e.turn_seq for e in turns.sent] == [1, 2]  # the dead request took no extra number


async def test_a_retry_of_a_published_turn_sends_nothing_more(api):
    client, turns, session_id = api
    first = await post(client, session_id, "Post a note to Slack.", "turn-a")
    again = await post(client, session_id, "Post a note to Slack.", "turn-a")
    assert first.status_code == again.status_code == 202
    assert again.json() == first.json()
    assert len(turns.sent) == 1


async def test_the_same_key_with_another_text_is_refused(api):
    client, turns, session_id = api
    await post(client, session_id, "Post a note to Slack.", "turn-b")
    other = await post(client, session_id, "Email the team instead.", "turn-b")
    assert other.status_code == 422 and "Idempotency-Key" in other.json()["detail"]
    assert len(turns.sent) == 1


async def test_a_retry_republishes_the_turn_as_it_was_routed_though_the_phase_moved_since(
    api, redis_url, monkeypatch
):
    # The first request published its turn and died before marking it published; the turn
    # reached the conversation, which moved the session to confirming. The retry must send
    # the same event (phase gathering): read anew, the phase would route the one turn to the
    # classifier too, and the user would get a confirmation summary and "confirmed" at once.
    client, turns, session_id = api

    async def dying(*_args: Any) -> None:
        raise ConnectionError("the gateway died after publishing")

    with monkeypatch.context() as patch:
        patch.setattr(SessionStore, "mark_published", dying)
        patch.setattr(SessionStore, "forget", dying)
        with contextlib.suppress(ConnectionError):
            await post(client, session_id, "That's all, please confirm.", "turn-n")
    redis = Redis.from_url(redis_url, decode_responses=True)
    assert await session.advance(redis, session_id, Phase.GATHERING, Phase.CONFIRMING)
    await redis.aclose()

    again = await post(client, session_id, "That's all, please confirm.", "turn-n")
    assert again.status_code == 202
    first, retried = turns.sent
    assert retried.phase == first.phase == Phase.GATHERING
    assert (retried.event_id, retried.turn_seq) == (first.event_id, first.turn_seq)
