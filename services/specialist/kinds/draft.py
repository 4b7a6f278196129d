"""A specialist step: the model drafts the config, code grounds and checks it."""

from __future__ import annotations

from typing import Any

from services.specialist import logic
from services.specialist.step import Deps, Step, StepFailed, ask
from shared.metrics import record_overrides


async def produce(step: Step, deps: Deps) -> tuple[str, dict[str, Any]]:
    """A specialist step: the model drafts the config (the heuristic when it cannot), code grounds it.

    The config follows the node's operation's schema when the plan names one.
    """
    node = step.command.node
    entry = deps.catalogue[node.runner]  # a specialist node runs on its specialist
    words, operation, apps = step.words, node.operation, step.specialists
    heuristic = logic.heuristic_config(entry, words, operation, apps)
    schema = logic.schema_for(entry, operation)
    data = await ask(
        step, deps, schema, lambda: heuristic, lambda d: logic.check(d, entry, operation)
    )
    if data != heuristic:
        data, fired = logic.ground(data, entry, words, operation, apps)
        record_overrides("specialist", fired)
    data, carried = logic.carry_stated(data, entry, node.stated, words, operation, apps)
    record_overrides("specialist", carried)
    try:
        logic.check(data, entry, operation)
    except logic.ConfigInvalid as exc:
        raise StepFailed(str(exc)) from None
    return "draft_config", data
