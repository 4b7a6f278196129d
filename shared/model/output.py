"""Checking a model's reply, and the repair turn that names what was wrong with it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from shared.model import jsonschema_lite

_ERROR_CHARS = 400  # keeps the repair prompt small when the error text is long
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class InvalidOutput(Exception):
    """The model answered, but not with an acceptable object."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def parse_reply(
    text: str | None, schema: dict[str, Any], validate: Callable[[dict[str, Any]], None] | None
) -> dict[str, Any]:
    """Turn the reply into a checked object, or raise InvalidOutput saying what is wrong."""
    if not text or not text.strip():
        raise InvalidOutput("invalid_json", "the reply was empty; a JSON object was expected")
    stripped = text.strip()
    fenced = _FENCE.match(stripped)  # some servers wrap JSON in a markdown fence
    try:
        data = json.loads(fenced.group(1) if fenced else stripped)
    except json.JSONDecodeError as exc:
        raise InvalidOutput("invalid_json", f"the reply is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidOutput(
            "invalid_json", f"the reply is JSON but not an object (got {type(data).__name__})"
        )
    try:
        jsonschema_lite.validate(data, schema)
    except jsonschema_lite.SchemaViolation as exc:
        raise InvalidOutput("schema", f"the reply does not match the schema: {exc}") from None
    if validate is not None:
        try:
            validate(data)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError too
            raise InvalidOutput("validation", f"the reply was rejected: {exc}") from None
    return data


def repair_turns(bad_output: str | None, error: str) -> list[dict[str, Any]]:
    """The assistant's bad reply and a user turn naming the error and asking for JSON only."""
    return [
        {"role": "assistant", "content": bad_output or ""},
        {
            "role": "user",
            "content": f"Your previous reply was invalid: {error[:_ERROR_CHARS]}\n"
            "Reply again with only the corrected JSON object that matches the schema, nothing else.",
        },
    ]
