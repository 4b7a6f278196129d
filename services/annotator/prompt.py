"""The annotator's prompt and output schema; static parts first so the server caches them."""

from __future__ import annotations

import json
from typing import Any

from catalog import Catalogue
from schemas.turn import OPERATORS, ChatMessage, Notes
from shared.model.quoting import quoted_user_text

INSTRUCTIONS = """You are a requirements annotator for an automation builder.
You keep notes about the automation the user wants. Your previous notes are your memory:
build on them, never drop an item unless the user explicitly removes it.
Return JSON only. Fields:
- requirement_summary: the whole automation so far in one short sentence.
- apps: every catalogue item the latest message refers to (by name, a slip of a name, or what it does), each once, with
  role "wanted" (the workflow should use it), "turned_down" (ruled out, replaced or taken back) or "context"
  (history, someone else's tool, an option only wondered about, data such as an email domain, an ordinary word),
  and the user's exact words that show it as evidence.
- confidence_score: 0..1, how complete the requirements are.
- hints: at most one short question still worth asking.
"""
# How the flow runs: offered to a model that can judge it (ModelSettings.model_extra_claims).
CLAIMS = """Also, where the latest message says so, each with the user's exact words as evidence:
- on a wanted app, "use": "event" (it starts the workflow), "source" (read from) or "destination" (written to);
- links: how data moves between wanted apps, each {"from": id, "to": id, "evidence"};
- values: values stated for an app (a channel, an address, a table, a label), each
  {"id": id, "text": the value exactly as written (a language as its code, a schedule as a
  five-field cron), "field": the config field it goes in if you know it, "evidence"};
- conditions: conditions stated ("only orders over 150"), each {"field", "operator": one of
  the listed, "value": exactly as written, "evidence"}.
"""
CATALOGUE_IDS = "Catalogue ids:\n"


def system_prompt(catalogue: Catalogue, claims: bool = True) -> str:
    """Instructions plus the catalogue ids: identical on every call, so it is cached.

    Ids only: aliases are the matcher's job, and every prompt token costs ~7 ms on 2 cores.
    """
    return (
        INSTRUCTIONS
        + (CLAIMS if claims else "")
        + CATALOGUE_IDS
        + ", ".join(e.id for e in catalogue.entries)
    )


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


# Per item ~40 tokens (id, role, a quote); the rest ~90 (summary, confidence, a hint).
BASE_TOKENS, TOKENS_PER_APP = 100, 40
# Beyond the apps code found, the model may name two the rules missed (a function said in
# other words: "get a text right away").
MIN_APPS = 2
# Optional claims about the flow per message; a model that makes none spends nothing on them.
MAX_LINKS, MAX_VALUES, MAX_CONDITIONS = 4, 4, 2


# A claim about the flow (a link, a value, a condition) ~35 tokens.
TOKENS_PER_CLAIM = 35


def max_tokens(referenced: int, claims: bool = True) -> int:
    """The completion budget for a message that refers to this many apps."""
    extra = TOKENS_PER_CLAIM * (MAX_LINKS + MAX_VALUES + MAX_CONDITIONS) if claims else 0
    return BASE_TOKENS + TOKENS_PER_APP * (referenced + MIN_APPS) + extra


def output_schema(
    catalogue: Catalogue, referenced: int = MIN_APPS, claims: bool = True
) -> dict[str, Any]:
    """Bounded JSON schema: a truncated constrained output would be invalid JSON.

    The number of verdicts is bounded by the apps the message refers to plus two it may find,
    so a weak model that fills every array to its maximum still fits the token budget.
    """
    ids = {"type": "string", "enum": [e.id for e in catalogue.entries]}
    use = {"use": {"type": "string", "enum": ["event", "source", "destination"]}}
    verdict = {
        "type": "object",
        "properties": {
            "id": ids,
            "role": {"type": "string", "enum": ["wanted", "turned_down", "context"]},
            "evidence": {"type": "string", "maxLength": 80},
            **(use if claims else {}),
        },
        "required": ["id", "role", "evidence"],
        "additionalProperties": False,
    }
    evidence = {"type": "string", "maxLength": 80}
    link = {
        "type": "object",
        "properties": {"from": ids, "to": ids, "evidence": evidence},
        "required": ["from", "to", "evidence"],
        "additionalProperties": False,
    }
    condition = {
        "type": "object",
        "properties": {
            "field": {"type": "string", "maxLength": 40},
            "operator": {"type": "string", "enum": list(OPERATORS)},
            "value": {"type": "string", "maxLength": 80},
            "evidence": evidence,
        },
        "required": ["field", "operator", "value", "evidence"],
        "additionalProperties": False,
    }
    value = {
        "type": "object",
        "properties": {
            "id": ids,
            "text": {"type": "string", "maxLength": 80},
            "field": {"type": "string", "maxLength": 40},
            "evidence": evidence,
        },
        "required": ["id", "text", "evidence"],
        "additionalProperties": False,
    }
    offered = {
        "links": {"type": "array", "items": link, "maxItems": MAX_LINKS},
        "values": {"type": "array", "items": value, "maxItems": MAX_VALUES},
        "conditions": {"type": "array", "items": condition, "maxItems": MAX_CONDITIONS},
    }
    return {
        "type": "object",
        "properties": {
            "requirement_summary": {"type": "string", "maxLength": 120},
            "apps": {"type": "array", "items": verdict, "maxItems": referenced + MIN_APPS},
            "confidence_score": {"type": "number", "minimum": 0, "maximum": 1},
            "hints": {"type": "array", "items": {"type": "string", "maxLength": 80}, "maxItems": 1},
            **(offered if claims else {}),
        },
        "required": ["requirement_summary", "apps", "confidence_score", "hints"],
        "additionalProperties": False,
    }
