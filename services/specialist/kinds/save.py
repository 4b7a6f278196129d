"""The save step: the composed document is persisted and the session points at it."""

from __future__ import annotations

from typing import Any

from services.specialist.step import Deps, Step


async def produce(step: Step, deps: Deps) -> tuple[str, dict[str, Any]]:
    """Persist the composed document and point the session at it."""
    document = step.artifact_of("composer")
    await deps.store.save_workflow(step.command.session_id, document)
    return "saved", {"workflow_id": document["workflow_id"]}
