"""What the classifier asks the model about a reply to the summary, and the JSON it answers."""

from __future__ import annotations

from typing import Any

from services.classifier import logic

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": list(logic.VERDICTS)}},
    "required": ["verdict"],
    "additionalProperties": False,
}
SYSTEM = (
    "The assistant showed the user a summary of an automation and asked them to confirm. "
    "Classify the user's reply: confirmed (they agree), amend (they want a change), unclear. "
    'Return JSON {"verdict": ...}.'
)
