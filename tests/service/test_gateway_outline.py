"""GET /v1/sessions/{id}/outline: the indexer's tree through the gateway, tenant rules kept."""

from __future__ import annotations

import contextlib

import httpx
import pytest_asyncio
from redis.asyncio import Redis

from catalog import find_mentions, load_catalogue
from schemas.outline import IndexedTurn, Outline
from services.gateway.store import SessionStore
from services.indexer import logic
from services.indexer.store import OutlineStore
from tests.support.gateway_api import gateway_app
from tests.support.long_conversation import long_session

TTL = 3600
KEYS = {"key-acme": "acme", "key-other": "other"}
CATALOGUE = load_catalogue()


@pytest_asyncio.fixture
async def api(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    app = gateway_app(redis, KEYS)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        yield client, redis
    await redis.aclose()


async def session_with_outline(client: httpx.AsyncClient, redis: Redis, turns: int) -> str:
    """A session of tenant acme whose first `turns` turns the indexer placed (heuristic)."""
    created = await client.post("/v1/sessions", headers={"Authorization": "Bearer key-acme"})
    session_id = created.json()["session_id"]
    outline, limits = Outline(), logic.Limits()
    texts = long_session(turns, seed=4)
    kept = {
        i: IndexedTurn(seq=i, turn_id=f"t{i}", text=t, ids=find_mentions(t, CATALOGUE))
        for i, t in enumerate(texts, 1)
    }
    while (batch := logic.pending_batch(outline, kept)) is not None:
        proposal = logic.heuristic(outline, batch, limits)
        outline = logic.place(outline, proposal, batch, limits, "heuristic").outline
    await OutlineStore(redis, TTL).put(session_id, outline, 0)
    return session_id


async def test_the_owner_reads_phases_topics_and_actions_with_turn_ranges(api):
    client, redis = api
    session_id = await session_with_outline(client, redis, 96)
    response = await client.get(
        f"/v1/sessions/{session_id}/outline", headers={"Authorization": "Bearer key-acme"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["session_id"] == session_id and body["turns_indexed"] == 96
    assert [(p["first_turn"], p["last_turn"]) for p in body["phases"]] == [(1, 80), (81, 96)]
    first_topic = body["phases"][0]["topics"][0]
    assert first_topic["title"] and first_topic["actions"][0]["first_turn"] == 1
    action = first_topic["actions"][0]
    assert action["turn_ids"] == ["t1", "t2", "t3", "t4"] and action["summary"]
    assert action["decided_by"] == "heuristic"


async def test_another_tenant_gets_404_and_no_key_gets_401(api):
    client, redis = api
    session_id = await session_with_outline(client, redis, 8)
    path = f"/v1/sessions/{session_id}/outline"
    other = await client.get(path, headers={"Authorization": "Bearer key-other"})
    assert other.status_code == 404 and "no session" in other.json()["detail"]
    assert (await client.get(path)).status_code == 401
    missing = await client.get(
        "/v1/sessions/nosuchsession1/outline", headers={"Authorization": "Bearer key-acme"}
    )
    assert missing.status_code == 404


async def test_a_session_with_fewer_than_4_turns_has_an_empty_outline(api):
    client, _ = api
    created = await client.post("/v1/sessions", headers={"Authorization": "Bearer key-acme"})
    session_id = created.json()["session_id"]
    response = await client.get(
        f"/v1/sessions/{session_id}/outline", headers={"Authorization": "Bearer key-acme"}
    )
    assert response.json() == {"session_id": session_id, "turns_indexed": 0, "phases": []}


async def test_a_retried_create_finishes_a_session_whose_first_request_died(api, monkeypatch):
    """The first request remembered its answer, then the gateway died before creating the
    session (`planwire chaos` found it): the retry must not answer with a session that will
    never exist."""
    client, _redis = api
    headers = {"Authorization": "Bearer key-acme", "Idempotency-Key": "create-crash"}

    async def crash(*_args):
        raise ConnectionError("the gateway died here")

    with monkeypatch.context() as patch:
        patch.setattr(SessionStore, "create", crash)
        patch.setattr(SessionStore, "forget", crash)  # dying, it cannot clean up either
        with contextlib.suppress(ConnectionError):
            await client.post("/v1/sessions", headers=headers)
    again = await client.post("/v1/sessions", headers=headers)
    session_id = again.json()["session_id"]
    state = await client.get(f"/v1/sessions/{session_id}", headers=headers)
    assert again.status_code == 201 and state.status_code == 200
    assert state.json()["phase"] == "gathering"
