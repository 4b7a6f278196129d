"""Gateway Kafka handlers: copy outbound events into each session's event stream."""

from __future__ import annotations

from faststream import Context

from schemas.envelope import Event
from schemas.turn import ReplyGenerated
from services.gateway.store import SessionStore
from shared.metrics import EVENTS_HANDLED


async def forward(store: SessionStore, event: Event, event_type: str, data: dict) -> None:
    """Append once; the SSE readers on every replica pick it up from Redis."""
    payload = {"event_id": str(event.event_id), "turn_id": event.turn_id, **data}
    await store.publish_outbound(event.session_id, str(event.event_id), event_type, payload)
    EVENTS_HANDLED.labels("gateway", type(event).__name__).inc()


async def on_reply_generated(event: ReplyGenerated, store: SessionStore = Context()) -> None:
    """Stream planwire's reply to the user."""
    await forward(store, event, "reply", {"text": event.text, "kind": event.reply_kind, "phase": event.phase})
