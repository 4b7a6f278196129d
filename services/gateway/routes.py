"""The HTTP API: sessions, messages, the event stream. Thin: rules live in logic.py."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from schemas.turn import Phase, TurnReceived
from services.gateway import browser_auth, logic
from services.gateway.metrics import SESSIONS_CREATED, TURNS
from services.gateway.store import SessionStore

router = APIRouter(prefix="/v1")
KEEPALIVE_MS = 15_000
OPEN_PHASES = [Phase.GATHERING, Phase.CONFIRMING]  # the first is an absent phase's


class MessageIn(BaseModel):
    """A user message."""

    text: str = Field(
        max_length=logic.MAX_MESSAGE_BYTES * 4, description="What the user says (up to 8 KB)."
    )


def store_of(request: Request) -> SessionStore:
    store: SessionStore = request.app.state.store
    return store


def tenant_of(request: Request, authorization: str | None = Header(default=None)) -> str:
    """The caller's tenant from its bearer key or its sign-in cookie; open without keys."""
    keys: dict[str, str] = request.app.state.api_keys
    if not keys:
        return "public"
    tenant = browser_auth.bearer_tenant(keys, authorization) or browser_auth.verify(
        request.cookies.get(browser_auth.COOKIE), time.time()
    )
    if tenant is None:
        raise HTTPException(401, "missing or unknown API key")
    return tenant


async def owned_session(
    session_id: str, tenant: str = Depends(tenant_of), store: SessionStore = Depends(store_of)
) -> str:
    """The session id if it exists and belongs to the caller; 404 otherwise (no existence leak)."""
    if await store.tenant(session_id) != tenant:
        raise HTTPException(404, f"no session {session_id}")
    return session_id


@router.post("/sessions", status_code=201)
async def create_session(
    tenant: str = Depends(tenant_of), store: SessionStore = Depends(store_of)
) -> dict[str, Any]:
    """Start a conversation."""
    session_id = logic.new_session_id()
    await store.create(session_id, tenant)
    SESSIONS_CREATED.inc()
    return {"session_id": session_id, "phase": Phase.GATHERING}


@router.get("/sessions")
async def list_sessions(
    tenant: str = Depends(tenant_of), store: SessionStore = Depends(store_of)
) -> dict[str, Any]:
    """The caller's recent conversations, newest first, to come back to."""
    return {"sessions": await store.sessions_of(tenant)}


@router.get("/catalogue")
async def catalogue_names(request: Request, _tenant: str = Depends(tenant_of)) -> dict[str, Any]:
    """Catalogue ids with their names and kinds, and the confidence threshold the notes meet."""
    view: dict[str, Any] = request.app.state.catalogue_view
    return view


@router.post("/sessions/{session_id}/messages", status_code=202)
async def post_message(
    body: MessageIn, request: Request, session_id: str = Depends(owned_session)
) -> dict[str, Any]:
    """Accept a user message; the reply arrives on the event stream."""
    try:
        text = logic.validate_message(body.text)
    except logic.BadInput as exc:
        raise HTTPException(422, str(exc)) from exc
    store = store_of(request)
    seq, phase = await store.next_turn_if_open(session_id, OPEN_PHASES)
    if seq is None:
        raise HTTPException(
            409, f"the session is {phase}; it takes messages only while gathering or confirming"
        )
    event = TurnReceived(
        session_id=session_id, turn_id=logic.new_turn_id(), text=text, turn_seq=seq
    )
    await request.app.state.turns.publish(event, key=event.key())
    TURNS.inc()
    return {"turn_id": event.turn_id, "event_id": str(event.event_id)}


@router.get("/sessions/{session_id}")
async def get_session(request: Request, session_id: str = Depends(owned_session)) -> dict[str, Any]:
    """Phase, notes, transcript and (once saved) the workflow id."""
    return await store_of(request).view(session_id)


@router.get("/sessions/{session_id}/outline")
async def get_outline(request: Request, session_id: str = Depends(owned_session)) -> dict[str, Any]:
    """The conversation's Phase > Topic > Action outline: titles, turn ranges, summaries."""
    return logic.outline_view(session_id, await store_of(request).outline(session_id))


@router.get("/workflows/{workflow_id}")
async def get_workflow(
    workflow_id: str, tenant: str = Depends(tenant_of), store: SessionStore = Depends(store_of)
) -> dict[str, Any]:
    """The saved workflow document (the caller's tenant only)."""
    found = await store.workflow(workflow_id)
    if not found or await store.tenant(found[0]) != tenant:
        raise HTTPException(404, f"no workflow {workflow_id}")
    return found[1]


@router.get("/sessions/{session_id}/events")
async def stream_events(
    request: Request,
    session_id: str = Depends(owned_session),
    last_event_id: str | None = Header(default=None),
) -> StreamingResponse:
    """Server-Sent Events of replies and progress; resumes after Last-Event-ID."""
    after = logic.resume_point(last_event_id or request.query_params.get("after"))
    frames = sse_frames(request, store_of(request), session_id, after)
    return StreamingResponse(
        frames,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def sse_frames(
    request: Request, store: SessionStore, session_id: str, after: str
) -> AsyncIterator[str]:
    """Read the session's stream until the client goes away; comments keep proxies open."""
    yield ": connected\n\n"
    while not await request.is_disconnected():
        events = await store.read_outbound(session_id, after, KEEPALIVE_MS)
        if not events:
            yield ": keep-alive\n\n"
        for entry_id, event_type, data in events:
            after = entry_id
            yield logic.sse_frame(entry_id, event_type, data)
