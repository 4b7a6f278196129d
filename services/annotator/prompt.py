"""The annotator's prompt and output schema; static parts first so the server caches them."""

from __future__ import annotations

import json
from typing import Any

from catalog import Catalogue
from schemas.turn import ChatMessage, Notes
from shared.model.quoting import quoted_user_text

INSTRUCTIONS = """You are a requirements annotator for an automation builder.
You keep notes about the automation the user wants. Your previous notes are your memory:
build on them, never drop an item unless the user explicitly removes it.
Return JSON only. Fields:
- requirement_summary: the whole automation so far in one short sentence.
- mentioned: catalogue items the user wants, named in the latest message, each with the user's exact words as evidence.
- removed: items the user explicitly removed (or only used in the past) in the latest message, each with the user's exact words.
- confidence_score: 0..1, how complete the requirements are.
- hints: at most one short question still worth asking.
Catalogue ids:
"""


def system_prompt(catalogue: Catalogue) -> str:
    """Instructions plus the catalogue ids: identical on every call, so it is cached.

    Ids only: aliases are the matcher's job, and every prompt token costs ~7 ms on 2 cores.
    """
    return INSTRUCTIONS + ", ".join(e.id for e in catalogue.entries)


def user_prompt(previous: Notes, last_reply: str, user_text: str) -> str:
    """The per-turn part: previous notes, what we last said, what the user said."""
    memory = previous.model_dump(
        include={"requirement_summary", "mentioned_integrations", "mentioned_tools", "removed"}
    )
    return (
        f"Previous notes: {json.dumps(memory)}\n"
        f"Assistant said: {last_reply[:300]}\n"
        f"Latest user message {quoted_user_text(user_text)}"
    )


def history_turns(messages: list[ChatMessage], turn_id: str | None) -> list[dict[str, str]]:
    """The conversation before this turn as chat turns (the naive policy's full history).

    The latest user message is left out: the per-turn prompt quotes it. The user's words
    stay quoted (an injection guard, not context: the naive policy keeps it).
    """
    return [
        {"role": m.role, "content": quoted_user_text(m.text) if m.role == "user" else m.text}
        for m in messages
        if not (m.role == "user" and turn_id and m.turn_id == turn_id)
    ]


MAX_TOKENS = 320


def output_schema(catalogue: Catalogue) -> dict[str, Any]:
    """Bounded JSON schema: a truncated constrained output would be invalid JSON.

    A weak model fills every string to its maxLength, so the bounds keep the worst case
    under MAX_TOKENS (summary ~30, two mentions and a removal ~35 each, hint ~20).
    """
    ids = {"type": "string", "enum": [e.id for e in catalogue.entries]}
    quoted = {
        "type": "object",
        "properties": {"id": ids, "evidence": {"type": "string", "maxLength": 48}},
        "required": ["id", "evidence"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "requirement_summary": {"type": "string", "maxLength": 120},
            "mentioned": {"type": "array", "items": quoted, "maxItems": 2},
            "removed": {"type": "array", "items": quoted, "maxItems": 1},
            "confidence_score": {"type": "number", "minimum": 0, "maximum": 1},
            "hints": {"type": "array", "items": {"type": "string", "maxLength": 80}, "maxItems": 1},
        },
        "required": ["requirement_summary", "mentioned", "removed", "confidence_score", "hints"],
        "additionalProperties": False,
    }
