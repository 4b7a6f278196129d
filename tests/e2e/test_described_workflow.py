"""The workflow a person described, built over HTTP on the embedded stack: its trigger, the
order data flows, its condition and the values the user stated (issue 29's two conversations)."""

from __future__ import annotations

from typing import Any

import pytest

from planwire.client import SessionClient
from planwire.evaluate import case_from
from planwire.shape import shape_errors
from tests.e2e.gathering import gather

pytestmark = pytest.mark.e2e

REVIEWS = {
    "id": "review-triage",
    "turns": [
        "When a customer leaves a 1-star review on our Shopify store, translate it to English "
        "if needed, check the tone, and post it in our #support Slack channel",
        "That's everything.",
    ],
    "confirm": "Yes, build it.",
    "expect": {
        "integrations": ["shopify", "slack"],
        "tools": ["translator", "sentiment"],
        "absent": [],
        "trigger": "shopify",
        "order": [["shopify", "translator"], ["translator", "sentiment"], ["sentiment", "slack"]],
        "values": {"slack": ["#support"], "translator": ["en"], "*": ["1"]},
    },
}
LEADS = {
    "id": "lead-digest",
    "turns": [
        "Every morning at 7, grab new rows from our Airtable leads base, summarize each lead "
        "and email the summary to sales@acme.com via Gmail",
        "skip leads from gmail.com addresses",
        "That's all.",
    ],
    "confirm": "Yes, build it.",
    "expect": {
        "integrations": ["airtable", "gmail"],
        "tools": ["scheduler", "text_summarizer"],
        "absent": [],
        "trigger": "scheduler",
        "order": [["airtable", "text_summarizer"], ["text_summarizer", "gmail"]],
        "values": {"scheduler": ["0 7 * * *"], "gmail": ["sales@acme.com"], "*": ["gmail.com"]},
    },
}


async def built(stack: Any, case: dict[str, Any]) -> dict[str, Any]:
    """Play the case's turns and confirmation; the saved workflow document."""
    async with SessionClient(stack.gateway_url) as session:
        state, _ = await gather(session, case["turns"])
        assert state["phase"] == "confirming", state
        await session.say(case["confirm"])
        done = await session.wait_for(
            lambda e: e.type in {"workflow_completed", "workflow_failed"}, timeout_s=120
        )
        assert done.type == "workflow_completed", done.data
        response = await session.http.get(f"/v1/workflows/{done.data['workflow_id']}")
    return dict(response.json())


@pytest.mark.parametrize("case", [REVIEWS, LEADS], ids=lambda c: c["id"])
async def test_the_built_workflow_has_the_trigger_order_condition_and_values_described(stack, case):
    document = await built(stack, case)
    assert document["format"] == "planwire.workflow/v2"
    assert shape_errors(case_from(case), document) == []
    apps = [n.get("app") for n in document["nodes"]]
    assert set(case["expect"]["integrations"] + case["expect"]["tools"]) <= set(apps)
    assert any(n["kind"] == "condition" for n in document["nodes"]), "the stated condition"
