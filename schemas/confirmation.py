"""Events of the confirmation step: the user's reply classified, requirements confirmed."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from schemas.envelope import Event
from schemas.topics import Topic
from schemas.turn import ContextTrimmed, Notes


class ReplyClassified(Event):
    """The classifier's verdict on the user's reply to the confirmation summary."""

    topic: ClassVar[Topic] = Topic("classifier.reply-classified.v1")

    verdict: Literal["confirmed", "amend", "unclear"] = Field(description="What the user meant.")
    rule: str | None = Field(
        default=None, max_length=64, description="The code rule that overrode the model, if any."
    )
    context: ContextTrimmed = Field(
        description="The turn that was classified; an amend re-enters the annotator with it."
    )


class RequirementsConfirmed(Event):
    """The user confirmed the summary; planning starts from these notes."""

    topic: ClassVar[Topic] = Topic("classifier.requirements-confirmed.v1")

    notes: Notes = Field(description="The confirmed notes (ready is true).")
