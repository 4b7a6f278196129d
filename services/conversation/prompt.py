"""What the conversation asks the model for its next question, and the JSON it answers."""

from __future__ import annotations

from typing import Any

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 400}},
    "required": ["text"],
    "additionalProperties": False,
}
SYSTEM = (
    "You help a user describe an automation. Reword the given reply in a short, friendly way "
    "(under 50 words): keep every fact it states, name no app it does not name, and end with its "
    'one question. Return JSON {"text": ...}.'
)
