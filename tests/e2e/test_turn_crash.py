"""The gateway SIGKILLed after it remembered a message's Idempotency-Key and before it
published the turn (issue 11): the front end's retry under the same key gets the same turn
id, and that turn is answered exactly once."""

from __future__ import annotations

import contextlib
from collections import Counter

import httpx
import pytest

from planwire.client import SessionClient
from planwire.stack import EmbeddedStack
from shared.model.factory import ModelSettings

pytestmark = pytest.mark.e2e
TEXT = "When a new invoice arrives in Gmail, add a row to a Google Sheets spreadsheet."


async def test_a_turn_the_dying_gateway_never_published_is_answered_once_after_the_retry(
    tmp_path,
):
    env = {
        "gateway": {
            "PLANWIRE_CRASH_AT": "publish:TurnReceived",
            "PLANWIRE_CRASH_ONCE": str(tmp_path / "gateway"),  # the restarted gateway runs through
        }
    }
    stack = EmbeddedStack(ModelSettings(model="heuristic"), service_env=env)
    async with stack, SessionClient(stack.gateway_url, timeout_s=90) as session:
        path = f"/v1/sessions/{session.session_id}/messages"
        headers = {"Idempotency-Key": "turn-1"}
        with pytest.raises(httpx.TransportError):  # the gateway died mid-request
            await session.http.post(path, json={"text": TEXT}, headers=headers)
        assert (tmp_path / "gateway.publish.TurnReceived").exists()
        await stack.restart("gateway")

        retried = await session.http.post(path, json={"text": TEXT}, headers=headers)
        assert retried.status_code == 202, retried.text
        turn_id = retried.json()["turn_id"]
        reply = await session.wait_for(
            lambda e: e.type == "reply" and e.data.get("turn_id") == turn_id
        )
        assert "gmail" in (await session.state())["notes"]["mentioned_integrations"]

        # The front end may retry once more; still one turn, one reply.
        again = await session.http.post(path, json={"text": TEXT}, headers=headers)
        assert again.json()["turn_id"] == turn_id
        following = await session.say("Also post a note to Slack for each invoice.")
        with contextlib.suppress(TimeoutError):
            await session.wait_for(lambda e: False, timeout_s=2)  # late duplicates
        state = await session.state()

    replies = Counter(e.data["turn_id"] for e in session.seen if e.type == "reply")
    assert replies[turn_id] == 1 and replies[following.data["turn_id"]] == 1, replies
    user_turns = [t for t in state["transcript"] if t["role"] == "user"]
    assert [t["text"] for t in user_turns] == [TEXT, "Also post a note to Slack for each invoice."]
    assert reply.data["phase"] == "gathering"
