"""A config step: the specialist's draft, normalised and validated strictly."""

from __future__ import annotations

from typing import Any

from services.specialist import logic
from services.specialist.step import Deps, Step, StepFailed


async def produce(step: Step, deps: Deps) -> tuple[str, dict[str, Any]]:
    """A config step: normalise the specialist's current draft and validate it strictly
    against its operation's schema (the catalogue entry's when the plan names none)."""
    node = step.command.node
    specialist = node.runner  # a config node runs on its specialist
    found = step.context.artifact(specialist)
    if found is None:
        raise StepFailed(f"the {specialist} step left no draft config")
    try:
        config = logic.normalise(
            found.content, deps.catalogue[specialist], step.words, node.operation, step.specialists
        )
    except logic.ConfigInvalid as exc:
        raise StepFailed(str(exc)) from None
    return "config", config
