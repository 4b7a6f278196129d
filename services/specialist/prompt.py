"""What each kind of step asks the model, and the JSON it must answer with."""

from __future__ import annotations

from typing import Any

TITLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"title": {"type": "string", "maxLength": 80}},
    "required": ["title"],
    "additionalProperties": False,
}
# 600 characters fit the step's 400-token budget with room to spare: a summary cut off by
# max_tokens is invalid JSON, and on the local model it was also the slowest call of a run.
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string", "maxLength": 600}},
    "required": ["summary"],
    "additionalProperties": False,
}
# What each kind of step is asked; it ends the prompt (context.render), after the parts
# every step of the session shares.
ROLE_TEXTS = {
    "specialist": "Configure the {name} step: reply with its config as one JSON object matching the schema.",
    "config": "The {name} step's draft config is normalised and validated against its schema.",
    "composer": 'Name the workflow: reply with JSON {{"title": ...}}, a short title saying what it does.',
    "save": "The workflow document is saved.",
    "summarizer": 'Tell the user in a few sentences what workflow was built, naming every step. Reply with JSON {{"summary": ...}}.',
}
