"""Every topic planwire uses, in one place: `<owner>.<event-kebab>.v<major>`.

The producer owns an event's topic; the consumer owns a command's topic. Each consumed
topic has a dead-letter twin `<topic>.dlq`. Topics are created at start-up with these
partition counts (the embedded broker cannot add partitions later).
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


TURN_RECEIVED = Topic("gateway.turn-received.v1")
CONTEXT_TRIMMED = Topic("trimmer.context-trimmed.v1")
NOTES_UPDATED = Topic("annotator.notes-updated.v1")
REPLY_GENERATED = Topic("conversation.reply-generated.v1")
REPLY_CLASSIFIED = Topic("classifier.reply-classified.v1")
REQUIREMENTS_CONFIRMED = Topic("classifier.requirements-confirmed.v1")
PLAN_COMPILED = Topic("planner.plan-compiled.v1")
STEP_COMPLETED = Topic("specialist.step-completed.v1")
STEP_PROGRESSED = Topic("dispatcher.step-progressed.v1")
WORKFLOW_COMPLETED = Topic("dispatcher.workflow-completed.v1")
WORKFLOW_FAILED = Topic("dispatcher.workflow-failed.v1")


def run_step_topic(runner: str) -> Topic:
    """The command topic of one step runner (a specialist id, or composer/save/summarizer)."""
    return Topic(f"{runner.replace('_', '-')}.run-step.v1")


EVENT_TOPICS: tuple[Topic, ...] = (
    TURN_RECEIVED,
    CONTEXT_TRIMMED,
    NOTES_UPDATED,
    REPLY_GENERATED,
    REPLY_CLASSIFIED,
    REQUIREMENTS_CONFIRMED,
    PLAN_COMPILED,
    STEP_COMPLETED,
    STEP_PROGRESSED,
    WORKFLOW_COMPLETED,
    WORKFLOW_FAILED,
)


def all_topics(runners: list[str]) -> list[Topic]:
    """Every event topic, every runner's command topic, and each one's dead-letter topic."""
    topics = [*EVENT_TOPICS, *(run_step_topic(r) for r in runners)]
    return [*topics, *(Topic(t.dlq, DLQ_PARTITIONS) for t in topics)]
