"""The summarizer step: what was built, in words that name every step."""

from __future__ import annotations

from typing import Any

from services.specialist import summary
from services.specialist.prompt import SUMMARY_SCHEMA
from services.specialist.step import Deps, Step, ask
from shared.metrics import record_overrides


async def produce(step: Step, deps: Deps) -> tuple[str, dict[str, Any]]:
    """Tell the user what was built; code makes sure every node is named."""
    document, saved = step.artifact_of("composer"), step.artifact_of("save")
    fallback, names = (
        summary.heuristic_summary(document, deps.catalogue),
        summary.display_names(document, deps.catalogue),
    )
    proposed = str(
        (await ask(step, deps, SUMMARY_SCHEMA, lambda: {"summary": fallback})).get("summary", "")
    )
    usable = summary.usable(proposed, names)
    text, repaired = summary.ensure_names(proposed if usable else fallback, names)
    record_overrides(
        "summarizer",
        (["summary_missing_names"] if repaired else []) + ([] if usable else ["summary_rejected"]),
    )
    return "summary", {"workflow_id": saved["workflow_id"], "summary": text}
