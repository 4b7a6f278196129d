"""Every event and command contract, and their exported JSON Schemas.

`python -m schemas.registry` rewrites `schemas/jsonschema/`; a test fails when a model
changed without its exported schema, so consumers in other languages never drift.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from schemas import confirmation, plan, turn
from schemas.envelope import Event

EXPORT_DIR = Path(__file__).parent / "jsonschema"

CONTRACTS: tuple[type[Event], ...] = (
    turn.TurnReceived,
    turn.ContextTrimmed,
    turn.NotesUpdated,
    turn.ReplyGenerated,
    turn.ReplyDelta,
    confirmation.ReplyClassified,
    confirmation.RequirementsConfirmed,
    plan.PlanCompiled,
    plan.RunStep,
    plan.StepCompleted,
    plan.StepProgressed,
    plan.WorkflowCompleted,
    plan.WorkflowFailed,
)


def rendered(model: type[BaseModel]) -> str:
    """The model's JSON Schema as committed: sorted keys, stable formatting."""
    return json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"


def export(directory: Path = EXPORT_DIR) -> list[Path]:
    """Write one `<Name>.json` per contract; returns the files written."""
    directory.mkdir(exist_ok=True)
    paths = []
    for model in CONTRACTS:
        path = directory / f"{model.__name__}.json"
        path.write_text(rendered(model))
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in export():
        print(written)
