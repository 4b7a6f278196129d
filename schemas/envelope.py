"""The envelope every planwire event and command carries."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field

from schemas.topics import Topic

SESSION_ID_PATTERN = r"^[A-Za-z0-9_-]{8,64}$"


def _now() -> datetime:
    return datetime.now(UTC)


class Event(BaseModel):
    """Base of every message on the bus: identity, partition key, causality, version."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    # The topic an event is published on (its producer's). None for a command, whose topic
    # belongs to its consumer (`RunStep.topic_for(runner)`).
    topic: ClassVar[Topic | None] = None

    event_id: uuid.UUID = Field(
        default_factory=uuid.uuid4, description="Unique id; consumers dedupe on it."
    )
    session_id: str = Field(
        pattern=SESSION_ID_PATTERN, description="The chat session; the Kafka partition key."
    )
    turn_id: str | None = Field(
        default=None, max_length=64, description="The user turn this event belongs to."
    )
    occurred_at: datetime = Field(
        default_factory=_now, description="When the producer created the event (UTC)."
    )
    causation_id: uuid.UUID | None = Field(
        default=None, description="event_id of the message that caused this one."
    )
    schema_version: int = Field(
        default=1, ge=1, description="Major version of this event's schema."
    )

    @classmethod
    def caused_by(cls, cause: Event, *, salt: str = "", **fields: Any) -> Self:
        """Build the event `cause` leads to, with an event_id derived from the cause.

        Re-processing a redelivered cause yields the same event_id, so consumers' dedupe
        absorbs the duplicate (exactly-once effect on at-least-once delivery).
        """
        derived = uuid.uuid5(cause.event_id, f"{cls.__name__}:{salt}")
        return cls(
            event_id=derived,
            session_id=cause.session_id,
            turn_id=fields.pop("turn_id", cause.turn_id),
            causation_id=cause.event_id,
            **fields,
        )

    def key(self) -> bytes:
        """Kafka message key: one session's events stay in one partition, in order."""
        return self.session_id.encode()
