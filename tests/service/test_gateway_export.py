"""GET /v1/workflows/{id}?format=n8n: the saved workflow as an n8n file, tenant rules kept."""

from __future__ import annotations

import httpx
import pytest_asyncio
from redis.asyncio import Redis

from state.workflow import WorkflowWriter
from tests.support.gateway_api import TTL, gateway_app
from tests.unit.test_n8n_export import EVENT

KEYS = {"key-acme": "acme", "key-other": "other"}
ACME = {"Authorization": "Bearer key-acme"}
OTHER = {"Authorization": "Bearer key-other"}


@pytest_asyncio.fixture
async def api(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    app = gateway_app(redis, KEYS)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        created = await client.post("/v1/sessions", headers=ACME)
        await WorkflowWriter(redis, TTL).save(created.json()["session_id"], EVENT)
        yield client
    await redis.aclose()


async def test_the_owner_downloads_the_workflow_as_an_n8n_file(api):
    url = f"/v1/workflows/{EVENT['workflow_id']}"
    response = await api.get(url, params={"format": "n8n"}, headers=ACME)
    assert response.status_code == 200
    assert response.headers["content-disposition"] == (
        f'attachment; filename="{EVENT["workflow_id"]}.n8n.json"'
    )
    exported = response.json()
    assert [n["type"] for n in exported["nodes"]] == [
        "n8n-nodes-base.shopifyTrigger",
        "n8n-nodes-base.filter",
        "n8n-nodes-base.slack",
    ]
    assert set(exported["connections"]) == {n["name"] for n in exported["nodes"][:2]}
    plain = await api.get(url, headers=ACME)
    assert plain.json() == EVENT and "content-disposition" not in plain.headers


async def test_another_tenant_and_an_unknown_format_are_refused(api):
    url = f"/v1/workflows/{EVENT['workflow_id']}"
    other = await api.get(url, params={"format": "n8n"}, headers=OTHER)
    assert other.status_code == 404
    unknown = await api.get(url, params={"format": "zapier"}, headers=ACME)
    assert unknown.status_code == 400 and "n8n" in unknown.json()["detail"]
    anonymous = await api.get(url, params={"format": "n8n"})
    assert anonymous.status_code == 401


async def test_the_api_description_offers_the_n8n_format(api):
    schema = (await api.get("/openapi.json")).json()
    operation = schema["paths"]["/v1/workflows/{workflow_id}"]["get"]
    assert [p["name"] for p in operation["parameters"]] == ["workflow_id", "format"]
    assert {"200", "400", "404"} <= set(operation["responses"])


async def test_the_owner_reads_the_workflow_as_steps_in_words_and_no_one_else_does(api):
    url = f"/v1/workflows/{EVENT['workflow_id']}/steps"
    response = await api.get(url, headers=ACME)
    assert response.status_code == 200
    steps = response.json()["steps"]
    assert [(s["name"], s["does"]) for s in steps] == [
        ("Shopify", "New order"),
        ("Condition", "Only when total price over 150"),
        ("Slack", "Post a message to a channel"),
    ]
    assert steps[0]["to_fill"] == ["store"] and steps[2]["values"] == [
        {"label": "channel", "value": "#sales"}
    ]
    assert (await api.get(url, headers=OTHER)).status_code == 404
    assert (await api.get("/v1/workflows/wf-nope/steps", headers=ACME)).status_code == 404
