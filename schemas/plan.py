"""Contracts of planning and execution: the compiled plan, its steps, the workflow's end."""

from __future__ import annotations

from typing import ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from schemas.envelope import Event
from schemas.topics import Topic, run_step_topic
from schemas.turn import Link, Stated, StatedCondition

NodeKind = Literal["specialist", "config", "composer", "save", "summarizer"]
FIXED_RUNNERS: tuple[str, ...] = ("composer", "save", "summarizer")
NODE_ID_PATTERN = r"^[a-z0-9_.-]{1,80}$"


class PlanNode(BaseModel):
    """One step of a compiled plan; `kind` says what the step does and who runs it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: NodeKind = Field(
        description="specialist drafts a config, config validates it; then composer, save, summarizer."
    )
    node_id: str = Field(
        pattern=NODE_ID_PATTERN, description="Unique in the plan; names the step's artifact."
    )
    runner: str = Field(
        min_length=1,
        max_length=64,
        description="Who runs the step: the specialist id, or the fixed runner's name.",
    )
    specialist: str | None = Field(
        default=None,
        max_length=64,
        description="Catalogue id for specialist and config nodes, else null.",
    )
    instructions: str = Field(
        default="", max_length=1000, description="What this step should do, for this session."
    )
    operation: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[a-z][a-z0-9_]*$",
        description="For specialist and config nodes: the app's event or action this node "
        "performs (catalog/operations.json); null for fixed nodes and older plans.",
    )
    stated: list[Stated] = Field(
        default_factory=list,
        max_length=12,
        description="For specialist and config nodes: values the user stated for this step "
        "(Notes.stated), each of which its config must carry.",
    )
    conditions: list[StatedCondition] = Field(
        default_factory=list,
        max_length=20,
        description="For the composer: conditions a checked model read (Notes.conditions), "
        "placed beside those code reads in the user's words.",
    )
    links: list[Link] = Field(
        default_factory=list,
        max_length=40,
        description="For the composer: how data moves between steps where a checked model "
        "said so (Notes.links); a branch still takes its data from the step the user named.",
    )

    @model_validator(mode="after")
    def _runner_matches_kind(self) -> Self:
        """Specialist and config nodes run on their specialist; fixed nodes on themselves."""
        if self.kind in ("specialist", "config"):
            if not self.specialist or self.runner != self.specialist:
                raise ValueError(
                    f"a {self.kind} node runs on its specialist (got runner {self.runner!r})"
                )
        elif self.specialist is not None or self.runner != self.kind:
            raise ValueError(f"a {self.kind} node runs on {self.kind!r} and names no specialist")
        return self


class PlanCompiled(Event):
    """The planner compiled the whole plan for a confirmed session."""

    topic: ClassVar[Topic] = Topic("planner.plan-compiled.v1")

    plan_id: str = Field(
        min_length=1,
        max_length=64,
        description="Identity of this plan; every step event carries it.",
    )
    nodes: list[PlanNode] = Field(
        min_length=1, max_length=200, description="The steps in execution order."
    )
    repairs: list[str] = Field(
        default_factory=list, description="Code rules that corrected the model's proposal."
    )


class RunStep(Event):
    """Command to one step runner: run this node of the plan now."""

    @staticmethod
    def topic_for(runner: str) -> Topic:
        """A command's topic is its consumer's: one per step runner."""
        return run_step_topic(runner)

    plan_id: str = Field(min_length=1, max_length=64, description="The plan the step belongs to.")
    node_index: int = Field(ge=0, description="Position of the node in the plan.")
    node: PlanNode = Field(description="The node to run.")
    attempt: int = Field(ge=1, description="1 for the first request, higher for each re-request.")


class StepCompleted(Event):
    """A step runner finished a step, successfully or not."""

    topic: ClassVar[Topic] = Topic("specialist.step-completed.v1")

    plan_id: str = Field(min_length=1, max_length=64, description="The plan the step belongs to.")
    node_index: int = Field(ge=0, description="Position of the node in the plan.")
    node_id: str = Field(pattern=NODE_ID_PATTERN, description="The node that ran.")
    attempt: int = Field(ge=1, description="The attempt of the RunStep this answers.")
    status: Literal["ok", "failed"] = Field(
        description="ok when the artifact was written; failed with an error otherwise."
    )
    artifact_version: int | None = Field(
        default=None, ge=1, description="Version of the artifact the step wrote, when ok."
    )
    error: str | None = Field(
        default=None, max_length=1000, description="Why the step failed, readable by a user."
    )


class StepProgressed(Event):
    """Progress of the plan for the user's stream: a step was dispatched, retried or completed."""

    topic: ClassVar[Topic] = Topic("dispatcher.step-progressed.v1")

    node_index: int = Field(ge=0, description="Position of the node in the plan.")
    total: int = Field(ge=1, description="Number of nodes in the plan.")
    node_id: str = Field(pattern=NODE_ID_PATTERN, description="The node.")
    runner: str = Field(max_length=64, description="Who runs the node.")
    status: Literal["dispatched", "completed", "retrying"] = Field(
        description="What just happened to the step."
    )


class WorkflowCompleted(Event):
    """Every step ran: the workflow is saved and summarised."""

    topic: ClassVar[Topic] = Topic("dispatcher.workflow-completed.v1")

    workflow_id: str = Field(
        min_length=1, max_length=80, description="Id of the saved workflow document."
    )
    summary: str = Field(
        max_length=8000, description="What was built, naming every node, for the user."
    )


class WorkflowFailed(Event):
    """The plan could not be completed; the reason is meant for the user."""

    topic: ClassVar[Topic] = Topic("dispatcher.workflow-failed.v1")

    reason: str = Field(
        min_length=1, max_length=2000, description="Why the workflow failed, readable by a user."
    )
