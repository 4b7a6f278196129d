"""The indexer's prompt and output schema; the static part first so the server caches it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas.outline import IndexedTurn, Outline
from services.indexer.logic import SUMMARY_CHARS, TITLE_CHARS
from shared.model.quoting import quoted_user_text

SYSTEM = """You index a long requirements conversation into phases, topics and actions.
You get where the conversation stands (current phase and topic) and the next 4 user messages.
Decide where these messages go:
- extend_topic: they continue the current topic;
- new_topic: they start another subject within the current phase;
- new_phase: the conversation moved on to a different stage.
Give a short title (for a new topic or phase) and a one-line summary, both in the user's own words.
Return JSON only."""
MESSAGE_CHARS = 240  # per message: bounds the prompt on a 2-core local model
MAX_TOKENS = 120

DECISIONS = ["extend_topic", "new_topic", "new_phase"]


def user_prompt(outline: Outline, batch: Sequence[IndexedTurn]) -> str:
    """Where the tree stands and the batch's messages."""
    if outline.phases:
        phase = outline.phases[-1]
        topic = phase.topics[-1] if phase.topics else None
        where = f"Current phase: {phase.title} ({phase.turns} turns)\n" + (
            f"Current topic: {topic.title} ({topic.turns} turns)\n" if topic else ""
        )
    else:
        where = "No phase yet: this is the start of the conversation.\n"
    lines = [f"{t.seq}. {t.text[:MESSAGE_CHARS]}" for t in batch]
    return where + "Next user messages:\n" + quoted_user_text("\n".join(lines))


def output_schema() -> dict[str, Any]:
    """Bounded, so a weak model's longest answer still fits MAX_TOKENS."""
    return {
        "type": "object",
        "properties": {
            "decision": {"type": "string", "enum": DECISIONS},
            "title": {"type": "string", "maxLength": TITLE_CHARS},
            "summary": {"type": "string", "maxLength": SUMMARY_CHARS},
        },
        "required": ["decision", "title", "summary"],
        "additionalProperties": False,
    }


def messages(outline: Outline, batch: Sequence[IndexedTurn]) -> list[dict[str, Any]]:
    """The chat messages of one indexing call."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": user_prompt(outline, batch)},
    ]
