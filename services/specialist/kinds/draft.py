"""A specialist step: the model drafts the config, code grounds and checks it."""

from __future__ import annotations

from typing import Any

from services.specialist import logic
from services.specialist.step import Deps, Step, StepFailed, ask
from shared.metrics import record_overrides


async def produce(step: Step, deps: Deps) -> tuple[str, dict[str, Any]]:
    """A specialist step: the model drafts the config (the heuristic when it cannot), code grounds it."""
    entry = deps.catalogue[step.command.node.runner]  # a specialist node runs on its specialist
    words = step.words
    heuristic = logic.heuristic_config(entry, words)
    data = await ask(
        step, deps, entry.config_schema, lambda: heuristic, lambda d: logic.check(d, entry)
    )
    if data != heuristic:
        data, fired = logic.ground(data, entry, words)
        record_overrides("specialist", fired)
    try:
        logic.check(data, entry)
    except logic.ConfigInvalid as exc:
        raise StepFailed(str(exc)) from None
    return "draft_config", data
