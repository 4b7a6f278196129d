"""Topic naming, `<owner>.<event-kebab>.v<major>`, and the full topic list.

Each event class declares its own topic (`TurnReceived.topic`); the producer owns an
event's topic, the consumer owns a command's (`run_step_topic`). Each consumed topic has a
dead-letter twin `<topic>.dlq`. Topics are created at start-up with these partition counts
(the embedded broker cannot add partitions later).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PARTITIONS = 4
DLQ_PARTITIONS = 1


@dataclass(frozen=True)
class Topic:
    """A topic name and its partition count."""

    name: str
    partitions: int = DEFAULT_PARTITIONS

    @property
    def dlq(self) -> str:
        """The dead-letter topic for messages this topic's consumers could not take."""
        return f"{self.name}.dlq"


def run_step_topic(runner: str) -> Topic:
    """The command topic of one step runner (a specialist id, or composer/save/summarizer)."""
    return Topic(f"{runner.replace('_', '-')}.run-step.v1")


def event_topics() -> list[Topic]:
    """Every event's topic, in the registry's order."""
    from schemas.registry import CONTRACTS  # late: the contracts import Topic from here

    return [c.topic for c in CONTRACTS if c.topic is not None]


def all_topics(runners: list[str]) -> list[Topic]:
    """Every event topic, every runner's command topic, and each one's dead-letter topic."""
    topics = [*event_topics(), *(run_step_topic(r) for r in runners)]
    return [*topics, *(Topic(t.dlq, DLQ_PARTITIONS) for t in topics)]
