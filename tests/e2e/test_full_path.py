"""The whole path through the gateway: conversation, confirmation, plan, dispatch, saved workflow."""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from planwire.client import SessionClient
from tests.e2e.gathering import gather

pytestmark = pytest.mark.e2e

TURNS = [
    "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out of each PDF.",
    "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
]


async def test_a_confirmed_conversation_becomes_a_saved_workflow(stack):
    async with SessionClient(stack.gateway_url) as session:
        state, _ = await gather(session, TURNS)
        assert state["phase"] == "confirming"
        await session.say("Yes, that's everything. Please build it.")
        done = await session.wait_for(
            lambda e: e.type in {"workflow_completed", "workflow_failed"}, timeout_s=120
        )
        final = await session.state()
        document = (await session.http.get(f"/v1/workflows/{done.data.get('workflow_id')}")).json()
    plan = next(e.data for e in session.seen if e.type == "plan")
    progress = [e.data for e in session.seen if e.type == "progress"]
    assert done.type == "workflow_completed", done.data
    assert final["phase"] == "completed" and final["workflow_id"] == done.data["workflow_id"]
    assert {"gmail", "pdf_parser", "scheduler", "slack", "text_summarizer"} <= set(
        plan["specialists"]
    )
    assert {n["specialist"] for n in document["nodes"] if n.get("specialist")} >= set(
        plan["specialists"]
    )
    assert {p["status"] for p in progress} >= {"dispatched", "completed"}
    catalogue = load_catalogue()
    for specialist in plan["specialists"]:
        assert catalogue.get(specialist).name in done.data["summary"]


async def test_unknown_workflow_is_404(stack):
    async with SessionClient(stack.gateway_url) as session:
        response = await session.http.get("/v1/workflows/wf-does-not-exist")
    assert response.status_code == 404
