"""Events of one user turn: received, trimmed, annotated, answered."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from schemas.envelope import Event
from schemas.topics import Topic

MAX_MESSAGE_CHARS = 8192


class Phase(StrEnum):
    """The session's state machine; code owns every transition."""

    GATHERING = "gathering"
    CONFIRMING = "confirming"
    PLANNING = "planning"
    EXECUTING = "executing"
    COMPLETED = "completed"
    FAILED = "failed"


class ChatMessage(BaseModel):
    """One line of the transcript."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["user", "assistant"] = Field(description="Who said it.")
    text: str = Field(max_length=MAX_MESSAGE_CHARS * 2, description="What was said.")
    turn_id: str = Field(max_length=64, description="The user turn this line belongs to.")


Role = Literal["wanted", "turned_down", "context"]
Use = Literal["event", "source", "destination"]


class Reference(BaseModel):
    """An app the user referred to, what they meant by it, and their words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(max_length=64, description="Catalogue id of the app or tool.")
    role: Role = Field(
        description="wanted (the workflow uses it), turned_down (ruled out or taken back) or "
        "context (history, someone else's tool, an aside, data, an ordinary word)."
    )
    quote: str = Field(
        default="", max_length=400, description="The user's words that decided the role."
    )
    by: Literal["rules", "model"] = Field(
        default="rules", description="Who read the role: code's rules or a checked model verdict."
    )
    use: Use | None = Field(
        default=None,
        description="How the workflow uses a wanted app where the user's sentence says: an "
        "event that starts it, a source it reads, a destination it writes to.",
    )
    at: int = Field(
        default=0,
        ge=0,
        description="Where the user first asked for it: turn (the notes' version) x 100000 plus "
        "the offset in that message; orders the steps as the user described them.",
    )


class Link(BaseModel):
    """Data moves from one wanted step to another, as the user described it (a model's
    claim code checked: both steps noted, the quote the user's words, no cycle)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(max_length=64, description="Catalogue id the data comes from.")
    target: str = Field(max_length=64, description="Catalogue id the data goes to.")
    quote: str = Field(default="", max_length=400, description="The user's words that say so.")


class Stated(BaseModel):
    """A value the user stated for a step (a channel, an address, a table's name), in their
    own words: code checked that the text stands in the quote and the quote in the message."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(max_length=64, description="Catalogue id of the step the value is for.")
    text: str = Field(min_length=1, max_length=200, description="The value, as the user wrote it.")
    quote: str = Field(default="", max_length=400, description="The user's words around it.")
    field: str = Field(
        default="",
        max_length=64,
        pattern=r"^(?:[a-z][a-z0-9_]*)?$",
        description="The config field it goes in, when a model named one the app's operations have.",
    )


Operator = Literal[
    "equals",
    "not_equals",
    "contains",
    "not_contains",
    "greater_than",
    "less_than",
    "at_least",
    "at_most",
    "matches",
]


OPERATORS: tuple[Operator, ...] = get_args(Operator)


class StatedCondition(BaseModel):
    """A condition the user stated (a checked model's reading: the value stands word for
    word in the quote, the quote in their message); the workflow filters by it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(
        min_length=1, max_length=100, pattern=r"^[\w .-]+$", description="What is tested."
    )
    operator: Operator = Field(description="How it compares (conditions.filter's operators).")
    value: str = Field(min_length=1, max_length=200, description="The user's value.")
    quote: str = Field(default="", max_length=400, description="The user's words that state it.")


class Notes(BaseModel):
    """The shadow annotator's accumulated, structured notes about the requirements."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(
        default=0, ge=0, description="Incremented on every update; guards concurrent writes."
    )
    requirement_summary: str = Field(
        default="", max_length=2000, description="What the user wants, in a few sentences."
    )
    mentioned_integrations: list[str] = Field(
        default_factory=list, description="Catalogue integration ids noted so far."
    )
    mentioned_tools: list[str] = Field(
        default_factory=list, description="Catalogue tool ids noted so far."
    )
    removed: list[str] = Field(
        default_factory=list, description="Catalogue ids the user explicitly removed."
    )
    references: list[Reference] = Field(
        default_factory=list,
        description="Every app the user referred to, once each, with its latest role and quote; "
        "only wanted ones are in the forcing fields.",
    )
    links: list[Link] = Field(
        default_factory=list,
        max_length=40,
        description="How data moves between wanted steps where a checked model said so; the "
        "planner orders the steps by them (empty: code's reading of the order alone).",
    )
    stated: list[Stated] = Field(
        default_factory=list,
        max_length=60,
        description="Values the user stated for a step, checked against their words; the "
        "step's config carries each.",
    )
    conditions: list[StatedCondition] = Field(
        default_factory=list,
        max_length=20,
        description="Conditions a checked model read in the user's words, beside those "
        "code reads itself; the workflow filters by each.",
    )
    confidence_score: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="How complete the requirements are, capped by code.",
    )
    ready: bool = Field(default=False, description="True once the user confirmed the summary.")
    hints: list[str] = Field(
        default_factory=list, max_length=5, description="What the conversation should ask next."
    )
    last_turn_id: str | None = Field(
        default=None, description="The last turn folded into these notes."
    )


class TurnReceived(Event):
    """A user message accepted by the gateway."""

    topic: ClassVar[Topic] = Topic("gateway.turn-received.v1")

    text: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS, description="The user's message.")
    turn_seq: int = Field(
        ge=1, description="Position of this turn in the session (1, 2, ...); orders the transcript."
    )
    phase: Phase | None = Field(
        default=None,
        description="The session phase the gateway read when it took the turn; routes it "
        "(absent: the trimmer reads it).",
    )


class ContextTrimmed(Event):
    """The transcript after this turn, trimmed to whole change units within the budget."""

    topic: ClassVar[Topic] = Topic("trimmer.context-trimmed.v1")

    user_text: str = Field(max_length=MAX_MESSAGE_CHARS, description="This turn's user message.")
    messages: list[ChatMessage] = Field(
        description="Kept history, oldest first, ending with this turn."
    )
    dropped_units: int = Field(ge=0, description="Change units dropped to fit the budget.")
    phase: Phase = Field(description="The session phase when the turn arrived; routes the turn.")
    turn_seq: int | None = Field(
        default=None,
        ge=1,
        description="Position of this turn in the session (TurnReceived.turn_seq); the reply "
        "carries it on (absent: an event from before it was carried).",
    )


class NotesUpdated(Event):
    """The annotator folded this turn into the notes."""

    topic: ClassVar[Topic] = Topic("annotator.notes-updated.v1")

    notes: Notes = Field(description="The notes after this turn.")
    ready_for_confirmation: bool = Field(
        description="Code's threshold says the requirements are complete."
    )
    context: ContextTrimmed = Field(description="The trimmed context the notes were built from.")
    previous: Notes | None = Field(
        default=None,
        description="The notes before this turn, so the reply can say what it changed "
        "(absent: the conversation remembers them itself).",
    )


class ReplyGenerated(Event):
    """What planwire says to the user for this turn."""

    topic: ClassVar[Topic] = Topic("conversation.reply-generated.v1")

    text: str = Field(max_length=MAX_MESSAGE_CHARS, description="The reply shown to the user.")
    reply_kind: Literal["question", "confirmation", "clarify", "summary", "error"] = Field(
        description="question while gathering, confirmation summary, clarify when unclear."
    )
    phase: Phase = Field(description="The phase after this reply.")
    turn_seq: int | None = Field(
        default=None,
        ge=1,
        description="Position of the turn replied to; the transcript puts the reply right "
        "after that turn's message (absent: the trimmer finds the message by the turn id).",
    )


class ReplyDelta(Event):
    """A piece of the reply while a model writes it (streamed replies only).

    The pieces of one reply share its turn, numbered from 0; the `ReplyGenerated` that
    follows is the whole reply and wins: code checks the model's wording and may replace it.
    """

    topic: ClassVar[Topic] = Topic("conversation.reply-delta.v1")

    text: str = Field(max_length=MAX_MESSAGE_CHARS, description="The next piece of the reply.")
    index: int = Field(ge=0, description="The piece's place in the reply (0, 1, ...).")
