"""The event stream of a session over HTTP: Server-Sent Events, resumable, kept alive."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from services.gateway import logic
from services.gateway.access import tenant_of
from services.gateway.models import errors
from services.gateway.routes import NOT_FOUND, owned_session, refused, store_of
from services.gateway.store import OUTBOUND_PAGE, outbox_key

router = APIRouter(prefix="/v1", responses=errors(401, 421, 429, 503))
KEEPALIVE_S = 15.0
# The stream as OpenAPI can say it: text, one event per frame (README, "The event stream").
STREAM_DOC = {
    "description": "Server-Sent Events: `id`, `event` (`reply`, `plan`, `progress`, "
    "`workflow_completed`, `workflow_failed`) and JSON `data` holding `event_id` and "
    "`turn_id`; lines starting with `:` keep the connection alive. Each event type and "
    'its data: README, "The event stream".',
    "content": {
        "text/event-stream": {
            "schema": {
                "type": "string",
                "example": 'id: 1764265033512-0\nevent: reply\ndata: {"event_id":"…",'
                '"turn_id":"t-…","text":"Which Slack channel?","kind":"question",'
                '"phase":"gathering"}\n\n',
            }
        }
    },
}


class HeldStream(StreamingResponse):
    """A streaming response that gives its stream slot back however it ends."""

    def __init__(self, frames: AsyncIterator[str], release: Callable[[], None]) -> None:
        super().__init__(
            frames,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


@router.get(
    "/sessions/{session_id}/events",
    response_class=StreamingResponse,
    responses={200: STREAM_DOC}
    | NOT_FOUND
    | errors(400, e400="`Last-Event-ID` or `after` is not an event id of this stream."),
)
async def stream_events(
    request: Request,
    session_id: str = Depends(owned_session),
    tenant: str = Depends(tenant_of),
    last_event_id: str | None = Header(default=None),
) -> StreamingResponse:
    """Server-Sent Events of replies and progress; resumes after Last-Event-ID."""
    try:
        after = logic.resume_point(last_event_id, request.query_params.get("after"))
    except logic.BadInput as exc:
        raise HTTPException(400, str(exc)) from exc
    # The owner may be remembered, so nothing above needed Valkey: a store that is down must
    # still be a 503 with Retry-After, not a stream cut after its 200 (and before a slot).
    store = store_of(request)
    await store.reachable()
    await store.touch(session_id)
    slots = request.app.state.stream_slots
    if refusal := slots.refusal(tenant):
        raise refused(refusal)
    return HeldStream(sse_frames(request, session_id, after), slots.take(tenant))


async def sse_frames(request: Request, session_id: str, after: str) -> AsyncIterator[str]:
    """Read the session's stream until the client goes away; comments keep proxies open.

    The read never blocks a Redis connection: the process's one shared reader wakes it.
    """
    store, hub = store_of(request), request.app.state.outbox_hub
    yield ": connected\n\n"
    async with hub.watch(outbox_key(session_id), after) as watch:
        while not await request.is_disconnected():
            watch.woken.clear()  # before the read, so an entry added after it still wakes us
            # What the shared read handed over, when it follows on; else read the stream.
            events = watch.take(after)
            if events is None:
                events = await store.read_outbound(session_id, after)
            for entry_id, event_type, data in events:
                after = entry_id
                yield logic.sse_frame(entry_id, event_type, data)
            if len(events) >= OUTBOUND_PAGE:
                continue  # maybe more behind a full page: read on at once
            # A short page was all there was when it was read, and the event was cleared
            # before it: wait, rather than read again to find nothing (one XREAD per event).
            if not await watch.wait(KEEPALIVE_S):
                yield ": keep-alive\n\n"
