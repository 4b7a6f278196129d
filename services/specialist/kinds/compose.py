"""The composer step: the workflow document from every config, under a checked title."""

from __future__ import annotations

from typing import Any

from services.specialist import cite, compose
from services.specialist.prompt import TITLE_SCHEMA
from services.specialist.step import Deps, Step, StepFailed, ask
from shared.metrics import record_overrides


async def produce(step: Step, deps: Deps) -> tuple[str, dict[str, Any]]:
    """The composer: the workflow document from every config artifact."""
    configs = {
        s: a.content
        for s in compose.specialists_of(step.plan)
        if (a := step.context.artifact(f"{s}.config"))
    }
    fallback_title = compose.heuristic_title(step.plan, deps.catalogue)
    proposed = str(
        (await ask(step, deps, TITLE_SCHEMA, lambda: {"title": fallback_title})).get("title", "")
    )
    title = (
        proposed
        if compose.acceptable_title(proposed, step.plan, deps.catalogue)
        else fallback_title
    )
    record_overrides("composer", [] if title == proposed else ["title_rejected"])
    _outline, turns = await deps.store.outline(step.command.session_id)
    sources = {s: cite.sources(deps.catalogue[s], c, turns) for s, c in configs.items()}
    try:
        return "workflow", compose.compose(
            step.plan, step.command.session_id, configs, deps.catalogue, title, sources, step.words
        )
    except ValueError as exc:
        raise StepFailed(str(exc)) from None
