"""The planner's prompt and output schema; static parts first so the server caches them."""

from __future__ import annotations

from typing import Any

from catalog import Catalogue
from schemas.turn import Notes
from services.planner.logic import noted_ids

INSTRUCTIONS = """You plan an automation as an ordered list of specialist steps.
Use exactly the catalogue ids listed under "Noted", each once. Order them so the workflow
starts with what triggers it or feeds it data, then processing, then actions.
For each id write one short instruction saying what that step must do for this user.
Return JSON only: {"order": [ids], "instructions": [{"id": id, "text": instruction}]}."""


def messages(notes: Notes, catalogue: Catalogue) -> list[dict[str, Any]]:
    """System instructions, then this session's notes."""
    lines = [
        f"- {i} ({catalogue[i].role}): {catalogue[i].name}" for i in noted_ids(notes, catalogue)
    ]
    user = f"Requirements: {notes.requirement_summary}\nNoted:\n" + "\n".join(lines)
    return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user}]


def output_schema(catalogue: Catalogue) -> dict[str, Any]:
    """Bounded schema: ids come from the catalogue; code still checks them against the notes."""
    ids = {"type": "string", "enum": [e.id for e in catalogue.entries]}
    return {
        "type": "object",
        "properties": {
            "order": {"type": "array", "items": ids, "maxItems": 12},
            "instructions": {
                "type": "array",
                "maxItems": 12,
                "items": {
                    "type": "object",
                    "properties": {"id": ids, "text": {"type": "string", "maxLength": 200}},
                    "required": ["id", "text"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["order", "instructions"],
        "additionalProperties": False,
    }
