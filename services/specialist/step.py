"""What every kind of step shares: its dependencies, its context, its one model call.

A kind of step (`services/specialist/kinds/`) is one function `produce(step, deps)` that
returns its artifact's kind and content, or raises StepFailed with a message for the user.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from catalog import Catalogue
from schemas.plan import RunStep, StepCompleted
from services.specialist import logic
from services.specialist.context import StepContext
from services.specialist.store import StepStore
from shared.handling import HandlerDeps
from shared.model import ModelPort
from shared.wiring import Publisher, Setting
from state.plan import PlanLog


@dataclass(kw_only=True)
class Deps(HandlerDeps):
    """What the handlers need; the service kit fills each field (shared.wiring)."""

    store: StepStore
    model: ModelPort
    catalogue: Catalogue
    completed: Publisher[StepCompleted]
    delay_s: Annotated[float, Setting("specialist_delay_s")] = (
        0.0  # test-only: makes a step slow enough to kill mid-step
    )


class StepFailed(Exception):
    """The step cannot produce a valid artifact; the message is for the user."""


@dataclass(frozen=True)
class Step:
    """One attempt of one step, with the context it was built from."""

    command: RunStep
    plan: PlanLog
    context: StepContext
    prompt: list[dict[str, Any]]

    @property
    def words(self) -> str:
        """The user's words the step sees: its context window, then recalled earlier turns.

        The window comes first so that a value the user restated lately wins over an old one.
        """
        recalled = [p.text for p in self.context.recalled]
        return "\n".join([logic.user_words(self.context.messages), *recalled])

    @property
    def specialists(self) -> tuple[str, ...]:
        """The plan's apps: the only ones a value the user stated can belong to."""
        return tuple(dict.fromkeys(n.specialist for n in self.plan.nodes if n.specialist))

    def artifact_of(self, kind: str) -> dict[str, Any]:
        """Content of the earlier artifact made by the node of `kind`; StepFailed if absent."""
        node = next((n for n in self.plan.nodes if n.kind == kind), None)
        found = self.context.artifact(node.node_id) if node else None
        if found is None:
            raise StepFailed(f"the {kind} step's output is missing")
        return found.content


async def ask(
    step: Step,
    deps: Deps,
    schema: dict[str, Any],
    fallback: Callable[[], dict[str, Any]],
    validate: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """One model call of the step (repair turns chain inside it); the exchange is kept apart."""
    role = f"{step.command.node.kind}.{step.command.node.runner}"
    result = await deps.model.structured(
        role, step.prompt, schema, fallback=fallback, validate=validate, max_tokens=400
    )
    exchange = {
        "attempt": step.command.attempt,
        "role": role,
        "messages": step.prompt,
        "reply": result.data,
        "outcome": result.outcome,
    }
    await deps.store.record(
        step.command.session_id, "exchange", step.command.node.node_id, exchange
    )
    return result.data
