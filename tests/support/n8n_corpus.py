"""Exports of the workflows the corpus builds, checked against n8n's node descriptions.

Shared by the sampled check in the fast suite (tests/unit) and the whole corpus in
tests/deploy, so both judge the same way: the replay builds the document the stack saves
(tests/support/replay.py), `to_n8n` exports it, `workflow_problems` checks it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from catalog import load_catalogue
from catalog.n8n.descriptions import Nodes
from catalog.n8n.export import to_n8n
from catalog.n8n.validate import workflow_problems
from catalog.operations import Operation, load_operations
from tests.support.replay import replay

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [ROOT.parent / "shared" / "eval" / "cases", ROOT / "eval" / "cases"]


def cases() -> list[dict[str, Any]]:
    """Every case of the shared and the project's corpus, in a stable order."""
    return [json.loads(f.read_text()) for d in CORPORA for f in sorted(d.glob("*.json"))]


def exported(cases_: list[dict[str, Any]], nodes: Nodes) -> tuple[int, dict[str, list[str]]]:
    """(how many cases built a workflow, the problems of each export that has any)."""
    catalogue, built, failed = load_catalogue(), 0, {}
    for case in cases_:
        document = replay(case, catalogue).workflow
        if document is None:
            continue
        built += 1
        if problems := workflow_problems(to_n8n(document), nodes):
            failed[case["id"]] = problems
    return built, failed


def sample_value(spec: dict[str, Any]) -> Any:
    """A schema-valid value a person might give, for the every-operation export."""
    if "enum" in spec:
        return spec["enum"][-1]
    kind = spec.get("type")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return spec.get("minimum", 3)
    if kind == "array":
        return ["name", "email"]
    return "Sales 2024"


def operation_document(app: str, operation: Operation, event: bool) -> dict[str, Any]:
    """A one-step document running the operation, every config property given."""
    config = {k: sample_value(s) for k, s in operation.config_schema["properties"].items()}
    node = {"id": app, "app": app, "kind": "integration", "operation": operation.id,
            "role": "trigger" if event else "action", "config": config}  # fmt: skip
    trigger = {"kind": "event", "node": app, "event": operation.id} if event else {"kind": "manual"}
    return {"workflow_id": f"wf-{app}", "trigger": trigger, "nodes": [node], "edges": []}


def every_operation() -> list[tuple[str, dict[str, Any]]]:
    """(app.operation, its document) for every event and action."""
    documents = []
    for app in load_operations().apps:
        for op in app.events:
            documents.append((f"{app.id}.{op.id}", operation_document(app.id, op, True)))
        for op in app.actions:
            documents.append((f"{app.id}.{op.id}", operation_document(app.id, op, False)))
    return documents
