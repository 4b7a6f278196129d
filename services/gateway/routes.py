"""The HTTP API: sessions, messages, the event stream. Thin: rules live in logic.py."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from pydantic import BaseModel, Field

from schemas.turn import Phase, TurnReceived
from services.gateway import logic
from services.gateway.access import tenant_of
from services.gateway.limits import Limits, Refusal
from services.gateway.metrics import REFUSED, SESSIONS_CREATED, TURNS
from services.gateway.models import (
    CatalogueView,
    OutlineView,
    SessionCreated,
    SessionList,
    SessionView,
    TurnAccepted,
    errors,
)
from services.gateway.store import SessionStore, idem_key

# Every route: the caller's key (401, 429 after failed logins), the Host guard (421), the
# store or the broker down (503).
router = APIRouter(prefix="/v1", responses=errors(401, 421, 429, 503))
# Routes under a session: an id not the caller's, or a parameter not of its type.
NOT_FOUND = errors(404, 422, e404="No session with that id for your tenant.")
OPEN_PHASES = [Phase.GATHERING, Phase.CONFIRMING]  # the first is an absent phase's


class MessageIn(BaseModel):
    """A user message."""

    text: str = Field(
        max_length=logic.MAX_MESSAGE_BYTES * 4, description="What the user says (up to 8 KB)."
    )


def store_of(request: Request) -> SessionStore:
    store: SessionStore = request.app.state.store
    return store


def limits_of(request: Request) -> Limits:
    limits: Limits = request.app.state.limits
    return limits


async def the_store(request: Request) -> SessionStore:
    """`store_of` as a dependency. Every dependency here is a coroutine: FastAPI runs a plain
    `def` one on a worker thread, a thread hand-off per request for microseconds of work."""
    return store_of(request)


def refused(refusal: Refusal) -> HTTPException:
    """A 429/503 with Retry-After, counted by reason."""
    REFUSED.labels(str(refusal.status)).inc()
    return HTTPException(
        refusal.status, refusal.detail, headers={"Retry-After": str(refusal.retry_after_s)}
    )


async def within_rate(
    store: SessionStore, tenant: str, what: str, limit: int, period_s: int
) -> None:
    """Count one request against a tenant's window; 429 with Retry-After when over it."""
    if (wait := await store.hit(tenant, what, limit, period_s)) is not None:
        raise refused(Refusal(429, f"over {limit} {what} per {period_s} s for this tenant", wait))


async def idempotency_key(idempotency_key: str | None = Header(default=None)) -> str | None:
    """The request's Idempotency-Key header, checked (422 when malformed)."""
    try:
        return logic.idempotency_key(idempotency_key)
    except logic.BadInput as exc:
        raise HTTPException(422, str(exc)) from exc


async def owned_session(
    session_id: str, tenant: str = Depends(tenant_of), store: SessionStore = Depends(the_store)
) -> str:
    """The session id if it exists and belongs to the caller; 404 otherwise (no existence leak)."""
    if not logic.plausible_id(session_id) or await store.tenant(session_id) != tenant:
        raise HTTPException(404, "no session with that id")
    return session_id


@router.post(
    "/sessions",
    status_code=201,
    response_model=SessionCreated,
    responses=errors(422, e422="A malformed Idempotency-Key header."),
)
async def create_session(
    request: Request,
    tenant: str = Depends(tenant_of),
    key: str | None = Depends(idempotency_key),
) -> dict[str, Any]:
    """Start a conversation (an Idempotency-Key makes a retried request the same session)."""
    store, limits = store_of(request), limits_of(request)
    answer = {"session_id": logic.new_session_id(), "phase": Phase.GATHERING}
    if key and (earlier := await store.remember(f"t.{tenant}", key, answer, limits.idem_ttl_s)):
        # The first request may have died between remembering its answer and creating the
        # session (a crashed gateway): the retry finishes the job instead of answering
        # with a session that will never exist.
        if await store.tenant(earlier["session_id"]) is None:
            await store.create(earlier["session_id"], tenant)
        return earlier
    try:
        await within_rate(store, tenant, "sessions", limits.sessions_per_min, 60)
        await within_rate(store, tenant, "sessions-daily", limits.sessions_per_day, 86_400)
        await store.create(answer["session_id"], tenant)
    except BaseException:
        if key:
            await store.forget(f"t.{tenant}", key)
        raise
    SESSIONS_CREATED.inc()
    return answer


@router.get("/sessions", response_model=SessionList)
async def list_sessions(
    tenant: str = Depends(tenant_of), store: SessionStore = Depends(the_store)
) -> dict[str, Any]:
    """The caller's recent conversations, newest first, to come back to."""
    return {"sessions": await store.sessions_of(tenant)}


@router.get("/catalogue", response_model=CatalogueView)
async def catalogue_names(request: Request, _tenant: str = Depends(tenant_of)) -> dict[str, Any]:
    """Catalogue ids with their names and kinds, and the confidence threshold the notes meet."""
    view: dict[str, Any] = request.app.state.catalogue_view
    return view


@router.post(
    "/sessions/{session_id}/messages",
    status_code=202,
    response_model=TurnAccepted,
    responses=NOT_FOUND
    | errors(
        409,
        413,
        422,
        e422="An empty, too long or hidden-character message, or an "
        "Idempotency-Key used with another message.",
    ),
)
async def post_message(
    body: MessageIn,
    request: Request,
    session_id: str = Depends(owned_session),
    tenant: str = Depends(tenant_of),
    key: str | None = Depends(idempotency_key),
) -> dict[str, Any]:
    """Accept a user message; the reply arrives on the event stream.

    With an Idempotency-Key a retried request is the same turn: the first answer is returned
    again and the turn is numbered once (a different text under the same key is a 422). If
    the first request died before its turn was published (a killed gateway), the retry
    publishes that same turn (same event id, so consumers take it once) instead of answering
    with a turn that will never get a reply.
    """
    try:
        text = logic.validate_message(body.text)
    except logic.BadInput as exc:
        raise HTTPException(422, str(exc)) from exc
    store, limits = store_of(request), limits_of(request)
    answer = {"turn_id": logic.new_turn_id(), "event_id": str(uuid.uuid4())}
    record = {**answer, "fingerprint": logic.fingerprint(text)}
    scope = f"s.{session_id}"
    if key and (earlier := await store.remember(scope, key, record, limits.idem_ttl_s)):
        if earlier["fingerprint"] != record["fingerprint"]:
            raise HTTPException(422, "this Idempotency-Key was used with a different message")
        answer = {"turn_id": earlier["turn_id"], "event_id": earlier["event_id"]}
        if earlier.get("published"):
            return answer
    elif key:  # the first request under this key: it alone counts against the rate
        await within_rate_or_forget(store, tenant, limits, scope, key)
    else:
        await within_rate(store, tenant, "turns", limits.turns_per_min, 60)
    try:
        await accept_turn(
            request, store, session_id, text, answer, idem_key(scope, key) if key else None
        )
    except BaseException:
        if key:
            await store.forget(scope, key)
        raise
    if key:
        await store.mark_published(scope, key)
    return answer


async def within_rate_or_forget(
    store: SessionStore, tenant: str, limits: Limits, scope: str, key: str
) -> None:
    """The turn rate check for a keyed request: a refused one leaves no record behind."""
    try:
        await within_rate(store, tenant, "turns", limits.turns_per_min, 60)
    except BaseException:
        await store.forget(scope, key)
        raise


async def accept_turn(
    request: Request,
    store: SessionStore,
    session_id: str,
    text: str,
    answer: dict[str, Any],
    remembered: str | None,
) -> None:
    """Check the phase, number the turn (once per Idempotency-Key) and publish it."""
    seq, phase = await store.next_turn_if_open(session_id, OPEN_PHASES, remembered)
    if seq is None:
        raise HTTPException(
            409, f"the session is {phase}; it takes messages only while gathering or confirming"
        )
    event = TurnReceived(
        event_id=uuid.UUID(answer["event_id"]),
        session_id=session_id,
        turn_id=answer["turn_id"],
        text=text,
        turn_seq=seq,
        phase=phase,  # read with the numbering: the trimmer need not read it again
    )
    await request.app.state.turns.publish(event, key=event.key())
    await store.touch(session_id)
    TURNS.inc()


@router.get("/sessions/{session_id}", response_model=SessionView, responses=NOT_FOUND)
async def get_session(request: Request, session_id: str = Depends(owned_session)) -> dict[str, Any]:
    """Phase, notes, transcript and (once saved) the workflow id."""
    return await store_of(request).view(session_id)


@router.get("/sessions/{session_id}/outline", response_model=OutlineView, responses=NOT_FOUND)
async def get_outline(request: Request, session_id: str = Depends(owned_session)) -> dict[str, Any]:
    """The conversation's Phase > Topic > Action outline: titles, turn ranges, summaries."""
    return logic.outline_view(session_id, await store_of(request).outline(session_id))
