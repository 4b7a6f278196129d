"""A streamed reply on the real stack: its pieces arrive as `reply.delta`, then the reply."""

from __future__ import annotations

import httpx
import pytest

from planwire.client import SessionClient, StreamEvent, parse_sse
from planwire.stack import EmbeddedStack
from shared.model.factory import ModelSettings

pytestmark = pytest.mark.e2e

# The bench's simulated streaming model: the conversation's reply starts after 30 ms and
# comes a word every 10 ms (the heuristic's words, so the reply is known).
STREAMING = {"PLANWIRE_MODEL_FIRST_TOKEN_MS": "30", "PLANWIRE_MODEL_TOKEN_MS": "10"}


async def replayed(gateway_url: str, session_id: str, after: str) -> list[StreamEvent]:
    """The session's stream reopened with Last-Event-ID `after`, up to the first reply."""
    found: list[StreamEvent] = []
    async with httpx.AsyncClient(base_url=gateway_url, timeout=30.0) as http:
        headers = {"Last-Event-ID": after}
        async with http.stream("GET", f"/v1/sessions/{session_id}/events", headers=headers) as r:
            async for event in parse_sse(r.aiter_lines()):
                found.append(event)
                if event.type == "reply":
                    return found
    return found


async def test_a_streamed_reply_arrives_in_pieces_then_whole_and_survives_a_reconnect():
    with EmbeddedStack(
        ModelSettings(model="heuristic"), service_env={"conversation": STREAMING}
    ) as stack:
        async with SessionClient(stack.gateway_url) as session:
            reply = await session.say("Watch my Gmail inbox for invoices.")
            turn = [e for e in session.seen if e.data.get("turn_id") == reply.data["turn_id"]]
            again = await replayed(stack.gateway_url, session.session_id, turn[0].id)
    pieces = [e for e in turn if e.type == "reply.delta"]
    assert len(pieces) > 1 and turn[-1] == reply  # several pieces, then the whole reply
    assert [p.data["index"] for p in pieces] == list(range(len(pieces)))
    # The pieces are the reply as it was written; what was left when the model ended comes
    # with the reply itself.
    assert reply.data["text"].startswith("".join(p.data["text"] for p in pieces))
    # Resuming after the first piece: the rest of the turn, the reply included, is there.
    assert again[-1].type == "reply" and again[-1].data["text"] == reply.data["text"]
    assert [e.id for e in again] == [e.id for e in turn[1:]]
