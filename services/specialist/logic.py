"""Config rules of a specialist: the heuristic draft, normalisation, validation. Pure.

The heuristic fills every property it can justify from the user's words (extract.py) and
every required one from a schema-valid default, so its draft always validates. The config
step normalises a draft (trims strings, fills missing required values) and validates it
strictly against the catalogue schema: an invalid draft fails the step with the reason.
"""

from __future__ import annotations

import re
from typing import Any

from catalog import CatalogueEntry
from schemas.turn import ChatMessage
from services.specialist import extract, values
from shared.model.jsonschema_lite import SchemaViolation, validate

# Defaults chosen to satisfy each catalogue pattern; they are placeholders the user can edit.
STRING_DEFAULTS = {
    "channel": "#general",
    "to": "+10000000000",
    "from_number": "+10000000000",
    "project_key": "PROJ",
    "repository": "owner/repository",
    "event": "charge.succeeded",
    "bucket": "planwire-workflows",
    "path": "/webhook",
    "cron": "0 9 * * *",
    "timezone": "UTC",
    "feed_url": "https://example.com/feed.xml",
    "url": "https://example.com/api",
    "connection": "default",
    "language": "en",
    "target_language": "en",
    "folder": "Inbox",
    "query": "in:inbox",
    "field": "text",
    "expression": "sum(total)",
    "output_field": "result",
}
NUMBER_DEFAULTS = {
    "max_words": 150,
    "poll_minutes": 60,
    "max_results": 5,
    "duration_minutes": 30,
    "decimals": 2,
    "recency_days": 7,
}
ARRAY_DEFAULTS = {"fields": ["text"], "columns": ["date", "summary"]}
FIELD_LISTS = ("fields", "columns", "properties")


class ConfigInvalid(ValueError):
    """A config that does not satisfy its specialist's schema; the message says why."""


def user_words(messages: list[ChatMessage] | tuple[ChatMessage, ...]) -> str:
    """What the user said, oldest first: the only text a heuristic value may come from."""
    return "\n".join(m.text for m in messages if m.role == "user")


def heuristic_config(entry: CatalogueEntry, text: str) -> dict[str, Any]:
    """A schema-valid config from the user's words and defaults; deterministic.

    It is grounding applied to an empty draft: what the words give, defaults for the rest.
    """
    return ground({}, entry, text)[0]


def ground(
    draft: dict[str, Any], entry: CatalogueEntry, text: str
) -> tuple[dict[str, Any], list[str]]:
    """The model's draft under code's facts; returns the config and the rules that fired.

    A value extracted from the user's words wins (like the catalogue matcher's findings);
    a model value that values.problem() rejects is replaced by the heuristic's value (or
    dropped when optional); list items are checked one by one.
    """
    schema, words = entry.config_schema, values.content_words(text)
    config: dict[str, Any] = {}
    fired: list[str] = []
    for name, spec in schema["properties"].items():
        value, rules = _grounded_value(entry.id, name, spec, draft.get(name), text, words)
        fired += rules
        if value is None and name in schema.get("required", ()):
            value = default_value(name, spec)
        if value is not None:
            config[name] = value
    return config, fired


def _grounded_value(
    specialist: str, name: str, spec: dict[str, Any], proposed: Any, text: str, words: set[str]
) -> tuple[Any, list[str]]:
    extracted = value_from_text(specialist, name, spec, text)
    if isinstance(proposed, list):
        kept = [
            item
            for item in proposed
            if values.problem(name, spec.get("items", {}), item, words) is None
        ]
        dropped = ["config_item_not_grounded"] * (len(proposed) - len(kept))
        merged = list(dict.fromkeys([*(extracted or []), *kept]))[: spec.get("maxItems", 30)]
        return merged or None, dropped
    if extracted is not None:
        return extracted, [
            "config_value_from_user_words"
        ] if proposed is not None and proposed != extracted else []
    rule = None if proposed is None else values.problem(name, spec, proposed, words)
    return (None, [f"config_{rule}"]) if rule else (proposed, [])


def value_from_text(specialist: str, name: str, spec: dict[str, Any], text: str) -> Any:
    """A value for one property taken from the user's words, if one fits the schema."""
    value = _extracted(specialist, name, spec, text)
    return value if value is not None and fits(value, spec) else None


def _extracted(specialist: str, name: str, spec: dict[str, Any], text: str) -> Any:
    if name == "currency":
        return extract.currency(text)
    if "enum" in spec:
        return extract.enum_choice(spec["enum"], text)
    if spec.get("type") == "array" and name in FIELD_LISTS:
        return extract.fields(text)[: spec.get("maxItems", 30)] or None
    finders = {
        "channel": extract.channel,
        "cron": extract.cron,
        "timezone": extract.timezone,
        "to": extract.phone,
    }
    if spec.get("format") == "uri" or name in ("url", "feed_url"):
        return extract.url(text)
    if specialist == "gmail" and name == "query":
        return gmail_query(text)
    if name == "include_attachments" and re.search(
        r"\b(pdfs?|attachments?)\b", text, re.IGNORECASE
    ):
        return True
    return finders[name](text) if name in finders else None


def gmail_query(text: str) -> str | None:
    """A Gmail search from the user's words: attachments, invoices, receipts."""
    lowered = text.lower()
    terms = [
        t
        for w, t in (
            ("pdf", "has:attachment"),
            ("attachment", "has:attachment"),
            ("invoice", "invoice"),
            ("receipt", "receipt"),
        )
        if w in lowered
    ]
    return " ".join(dict.fromkeys(terms)) or None


def default_value(name: str, spec: dict[str, Any]) -> Any:
    """A schema-valid default for a required property nothing in the conversation fills."""
    kind = spec.get("type")
    if "enum" in spec:
        return spec["enum"][0]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return _clamp(NUMBER_DEFAULTS.get(name, spec.get("minimum", 0)), spec)
    if kind == "array":
        return list(ARRAY_DEFAULTS.get(name, []))[: spec.get("maxItems", 30)]
    if name in STRING_DEFAULTS:
        return STRING_DEFAULTS[name]
    if name.endswith("_template"):
        return "{summary}"
    return f"{name.replace('_', ' ')} to be chosen"[: spec.get("maxLength", 200)]


def _clamp(value: float, spec: dict[str, Any]) -> float:
    low: float = spec.get("minimum", value)
    high: float = spec.get("maximum", value)
    return min(max(value, low), high)


def normalise(draft: dict[str, Any], entry: CatalogueEntry, text: str) -> dict[str, Any]:
    """The config step: trim, drop nulls, fill missing required values, then validate strictly."""
    schema = entry.config_schema
    config = {k: v.strip() if isinstance(v, str) else v for k, v in draft.items() if v is not None}
    for name in schema.get("required", ()):
        if name not in config:
            spec = schema["properties"][name]
            config[name] = value_from_text(entry.id, name, spec, text) or default_value(name, spec)
    check(config, entry)
    return config


def check(config: dict[str, Any], entry: CatalogueEntry) -> None:
    """Raise ConfigInvalid, naming the property, unless `config` satisfies the entry's schema."""
    try:
        validate(config, entry.config_schema)
        for name, value in config.items():
            _check_strings(value, entry.config_schema["properties"][name], f"$.{name}")
    except SchemaViolation as exc:
        raise ConfigInvalid(f"{entry.name} config is invalid at {exc}") from None


def fits(value: Any, spec: dict[str, Any]) -> bool:
    """True when one property value satisfies its schema."""
    try:
        validate(value, spec)
        _check_strings(value, spec, "$")
    except SchemaViolation:
        return False
    return True


def _check_strings(value: Any, spec: dict[str, Any], path: str) -> None:
    """The string keywords the lite validator leaves out: pattern and format uri."""
    if isinstance(value, list) and isinstance(spec.get("items"), dict):
        for index, item in enumerate(value):
            _check_strings(item, spec["items"], f"{path}[{index}]")
    if not isinstance(value, str):
        return
    if "pattern" in spec and not re.search(spec["pattern"], value):
        raise SchemaViolation(path, f"{value!r} does not match {spec['pattern']!r}")
    if spec.get("format") == "uri" and not re.match(
        r"^[a-z][a-z0-9+.-]*://\S+$", value, re.IGNORECASE
    ):
        raise SchemaViolation(path, f"{value!r} is not a URI")
