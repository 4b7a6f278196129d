"""What the HTTP API answers, as models: `/openapi.json` and `/docs` describe every response
and every error from these, and FastAPI checks each answer against its model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.turn import ChatMessage, Notes, Phase


class ErrorOut(BaseModel):
    """Every error answer: what went wrong, in words."""

    detail: str = Field(description="What went wrong, in words a person can act on.")


# What each error status means on this API; a route may say more of its own case.
ERROR_WORDS = {
    400: "A bad request parameter (an unknown `format`, a malformed stream cursor).",
    401: "No API key or cookie, or one this gateway does not know.",
    404: "No such session or workflow for your tenant.",
    409: "The session takes no more messages (it is past confirming).",
    413: "The request body is over the gateway's limit.",
    421: "A host name this gateway does not answer to.",
    422: "The request is well-formed but its content is not acceptable (`detail` says why).",
    429: "Over a rate limit or quota, or too many failed logins; `Retry-After` says when to "
    "try again.",
    503: "The session store or the event bus is unavailable for now, or too many event "
    "streams are open; `Retry-After` says when to try again.",
}


def errors(*codes: int, **said: str) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for error statuses, each with the shared error model. `said` gives
    a route's own words for a status, keyed `e404` and so on."""
    return {
        code: {"model": ErrorOut, "description": said.get(f"e{code}", ERROR_WORDS[code])}
        for code in codes
    }


class SessionCreated(BaseModel):
    """A new conversation."""

    session_id: str = Field(description="The session's id: use it in every later call.")
    phase: Phase = Field(description="Where the conversation is: `gathering` at first.")


class SessionListed(BaseModel):
    """One of the caller's conversations."""

    session_id: str
    created: float = Field(description="When it started, in seconds since the Unix epoch.")
    phase: Phase
    title: str = Field(description="The user's first message (empty until there is one).")


class SessionList(BaseModel):
    """The caller's recent conversations."""

    sessions: list[SessionListed] = Field(description="Newest first.")


class CatalogueEntryView(BaseModel):
    """An app or tool as the page names it."""

    name: str = Field(description="The name people know it by, e.g. `Google Sheets`.")
    kind: Literal["integration", "tool"]


class CatalogueView(BaseModel):
    """What a client needs to show notes."""

    threshold: float = Field(description="The confidence the notes must reach to confirm.")
    entries: dict[str, CatalogueEntryView] = Field(description="By catalogue id.")


class TurnAccepted(BaseModel):
    """A message taken; its reply arrives on the event stream."""

    turn_id: str = Field(description="The turn the reply will name in its `turn_id`.")
    event_id: str = Field(description="The message's event id (a retry reuses it).")


class Usage(BaseModel):
    """Language-model tokens the session has used (zero with the rules backend)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    by_role: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="The same counts per model role."
    )


class SessionView(BaseModel):
    """One conversation as it stands."""

    session_id: str
    phase: Phase
    notes: Notes = Field(description="What planwire has noted of the requirements.")
    transcript: list[ChatMessage] = Field(description="The recent messages, oldest first.")
    workflow_id: str | None = Field(description="The saved workflow, once there is one.")
    failure: str | None = Field(description="Why building the workflow failed, if it did.")
    usage: Usage


class OutlineActionView(BaseModel):
    """A batch of four user turns and what they were about."""

    first_turn: int
    last_turn: int
    turn_ids: list[str]
    summary: str = Field(description="One line, in the user's words.")
    ids: list[str] = Field(description="Catalogue ids the turns name.")
    decided_by: Literal["model", "heuristic", "code"]


class OutlineTopicView(BaseModel):
    """A run of batches about one subject."""

    title: str
    turns: int
    first_turn: int | None
    last_turn: int | None
    actions: list[OutlineActionView]


class OutlinePhaseView(BaseModel):
    """A stretch of the conversation."""

    title: str
    turns: int
    first_turn: int | None
    last_turn: int | None
    topics: list[OutlineTopicView]


class OutlineView(BaseModel):
    """The conversation's Phase > Topic > Action outline (empty until four user turns)."""

    session_id: str
    turns_indexed: int
    phases: list[OutlinePhaseView]


class WorkflowNode(BaseModel):
    """A step of a saved workflow (docs/workflow-format.md has every field)."""

    model_config = ConfigDict(extra="allow")

    id: str
    app: str | None = Field(default=None, description="Catalogue id; null for a condition.")
    kind: Literal["integration", "tool", "condition"]
    role: str | None = Field(default=None, description="trigger, source, processor, action…")
    operation: str | None = Field(default=None, description="The app's event or action.")
    config: dict[str, Any] = Field(description="The step's settings.")


class WorkflowEdge(BaseModel):
    """Data flows from one step to another."""

    model_config = ConfigDict(populate_by_name=True)

    source: str = Field(alias="from")
    target: str = Field(alias="to")


class WorkflowDocument(BaseModel):
    """The saved workflow, `planwire.workflow/v2` (older ones keep `planwire.workflow/v1`)."""

    model_config = ConfigDict(extra="allow")

    format: str
    workflow_id: str
    title: str
    trigger: dict[str, Any] | None = None
    schedule: dict[str, Any] | None = None
    nodes: list[WorkflowNode]
    edges: list[WorkflowEdge] = []


class N8nWorkflow(BaseModel):
    """The saved workflow as an n8n workflow file (`?format=n8n`)."""

    model_config = ConfigDict(extra="allow")

    name: str
    nodes: list[dict[str, Any]] = Field(
        description="n8n nodes: id, name, type, typeVersion, position, parameters, notes."
    )
    connections: dict[str, Any] = Field(description="Source node name -> its outputs.")
    settings: dict[str, Any]
