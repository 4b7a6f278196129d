"""What the conversation asks the model for its next question, and the JSON it answers."""

from __future__ import annotations

from typing import Any

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 160}},
    "required": ["text"],
    "additionalProperties": False,
}
SYSTEM = (
    "You help a user describe an automation. Write ONE short, friendly question (under 30 words) "
    'that follows the guidance. Return JSON {"text": ...}.'
)
