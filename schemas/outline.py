"""The conversation index: a Phase > Topic > Action tree of one session, owned by the indexer.

A record, not an event: the indexer writes it (`pw:{session}:outline`, and the user words of
each turn under `pw:{session}:outline:turns`); the annotator and the step runtime read it to
recall change units the trimmer dropped; the gateway serves it as the session's outline.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Decision = Literal["extend_topic", "new_topic", "new_phase"]


class IndexedTurn(BaseModel):
    """One user turn as the indexer keeps it: what the user said, which items it names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: int = Field(ge=1, description="The turn's position in the session (1, 2, ...).")
    turn_id: str = Field(max_length=64, description="The turn id the transcript uses.")
    text: str = Field(description="The user's message of this turn.")
    ids: list[str] = Field(default_factory=list, description="Catalogue ids the message names.")


class OutlineAction(BaseModel):
    """One batch of turns: the change units it covers and a one-line summary."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batch: int = Field(ge=0, description="Batch number: turns 4*batch+1 .. 4*batch+4.")
    first_turn: int = Field(ge=1, description="First turn (seq) of the batch.")
    last_turn: int = Field(ge=1, description="Last turn (seq) of the batch.")
    turn_ids: list[str] = Field(description="The turn ids (change units) the action covers.")
    summary: str = Field(max_length=200, description="One line, in the user's words.")
    ids: list[str] = Field(default_factory=list, description="Catalogue ids the batch names.")
    decided_by: Literal["model", "heuristic", "code"] = Field(
        description="Who placed the batch: the model, the heuristic (model unavailable), or "
        "code (a rule overrode the model)."
    )

    @property
    def turns(self) -> int:
        """How many turns the action covers."""
        return self.last_turn - self.first_turn + 1


class OutlineTopic(BaseModel):
    """A run of actions about one subject."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(max_length=80, description="Short title in the user's words.")
    actions: list[OutlineAction] = Field(default_factory=list, description="Oldest first.")

    @property
    def turns(self) -> int:
        """Turns covered by the topic."""
        return sum(a.turns for a in self.actions)


class OutlinePhase(BaseModel):
    """A stretch of the conversation: one or more topics."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(max_length=80, description="Short title in the user's words.")
    topics: list[OutlineTopic] = Field(default_factory=list, description="Oldest first.")

    @property
    def turns(self) -> int:
        """Turns covered by the phase."""
        return sum(t.turns for t in self.topics)


class Outline(BaseModel):
    """The whole tree of one session; `version` guards concurrent writers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(default=0, ge=0, description="Incremented on every indexed batch.")
    next_batch: int = Field(default=0, ge=0, description="The next batch to index.")
    phases: list[OutlinePhase] = Field(default_factory=list, description="Oldest first.")

    def actions(self) -> list[tuple[OutlinePhase, OutlineTopic, OutlineAction]]:
        """Every action with the phase and topic it sits in, oldest first."""
        return [(p, t, a) for p in self.phases for t in p.topics for a in t.actions]
