"""Config rules of a specialist: the heuristic draft, normalisation, validation. Pure.

The heuristic fills every property it can justify from the user's words (extract.py) and
every required one from a schema-valid default, so its draft always validates. The config
step normalises a draft (trims strings, fills missing required values) and validates it
strictly against the catalogue schema: an invalid draft fails the step with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from catalog import CatalogueEntry
from catalog.operations import load_operations
from catalog.values import languages

# fits and value_from_text are read here by cite.py and the tests too.
from catalog.values.fromwords import check_strings
from catalog.values.fromwords import fits as fits
from catalog.values.fromwords import value_from_text as value_from_text
from schemas.turn import ChatMessage, Stated
from services.specialist import values
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
    "expression": "calculation to be chosen",  # no sum of a field nobody named
    "output_field": "result",
}
# Stand-ins that only a pattern needs (a phone number, a Slack channel slug): where the
# schema has no pattern the value says plainly that it is open ("channel to be chosen").
PATTERNED = {"to": "recipient", "from_number": "sender number", "channel": "channel"}
NUMBER_DEFAULTS = {
    "max_words": 150,
    "poll_minutes": 60,
    "max_results": 5,
    "duration_minutes": 30,
    "decimals": 2,
    "recency_days": 7,
}
ARRAY_DEFAULTS = {"fields": ["text"], "columns": ["date", "summary"]}


class ConfigInvalid(ValueError):
    """A config that does not satisfy its specialist's schema; the message says why."""


def user_words(messages: list[ChatMessage] | tuple[ChatMessage, ...]) -> str:
    """What the user said, oldest first: the only text a heuristic value may come from."""
    return "\n".join(m.text for m in messages if m.role == "user")


def schema_for(entry: CatalogueEntry, operation: str | None = None) -> dict[str, Any]:
    """The config schema of a node: its operation's (operations.json) when the plan names
    one the app offers, else the catalogue entry's (plans compiled before operations)."""
    if operation:
        try:
            app = load_operations()[entry.id]
        except KeyError:
            return entry.config_schema
        found = app.event(operation) or app.action(operation)
        if found is not None:
            return found.config_schema
    return entry.config_schema


def heuristic_config(
    entry: CatalogueEntry,
    text: str,
    operation: str | None = None,
    apps: Collection[str] | None = None,
) -> dict[str, Any]:
    """A schema-valid config from the user's words and defaults; deterministic.

    It is grounding applied to an empty draft: what the words give, defaults for the rest.
    `apps` (the plan's specialists) decide whose sentence a stated value is in.
    """
    return ground({}, entry, text, operation, apps)[0]


def ground(
    draft: dict[str, Any],
    entry: CatalogueEntry,
    text: str,
    operation: str | None = None,
    apps: Collection[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The model's draft under code's facts; returns the config and the rules that fired.

    A value extracted from the user's words wins (like the catalogue matcher's findings);
    a model value that values.problem() rejects is replaced by the heuristic's value (or
    dropped when optional); list items are checked one by one.
    """
    schema, words = schema_for(entry, operation), values.content_words(text)
    config: dict[str, Any] = {}
    fired: list[str] = []
    for name, spec in schema["properties"].items():
        extracted = value_from_text(entry.id, name, spec, text, schema["properties"], apps)
        value, rules = _grounded_value(name, spec, draft.get(name), extracted, words)
        fired += rules
        if value is None and name in schema.get("required", ()):
            value = default_value(name, spec)
        if value is not None:
            config[name] = value
    return config, fired


def _grounded_value(
    name: str, spec: dict[str, Any], proposed: Any, extracted: Any, words: set[str]
) -> tuple[Any, list[str]]:
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


# A web address written without its scheme: a host with a dot, then an optional path.
HOST_PATH = re.compile(r"^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/?#]\S*)?$", re.I)


def carry_stated(
    config: dict[str, Any],
    entry: CatalogueEntry,
    stated: Collection[Stated],
    text: str,
    operation: str | None = None,
    apps: Collection[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The config with every value the user stated for the step (PlanNode.stated).

    A value a field already holds stays. Else it goes to the field a checked model named for
    it (the annotator kept only fields the app's operations have); else to the field code's
    own reading of its quote fills with it (the address after "send it to", the folder after
    "save in"), over whatever code had read there from elsewhere; else to the first required
    text field still open (a placeholder nobody said) that it fits. Schema and plausibility
    checks hold throughout; a value no field takes is left out and named, never forced."""
    schema = schema_for(entry, operation)
    words = values.content_words(text)
    carried = dict(config)
    fired: list[str] = []
    kept = {" ".join(v.text.lower().split()) for v in stated}
    required = set(schema.get("required", ()))
    for said in stated:
        if _holds(carried, said.text):
            continue
        fields = [
            (name, spec, value)
            for name, spec in _text_fields(schema)
            if (value := _as_field(name, spec, said.text)) is not None
            and values.problem(name, _item(spec), _plain(value), words) is None
        ]
        # Never over another value the user stated (two languages, one target field).
        free_of_stated = [f for f in fields if not _holds({f[0]: carried.get(f[0], "")}, *kept)]
        named = [f for f in free_of_stated if said.field and f[0] == said.field]
        read = [
            f
            for f in free_of_stated
            if _reads(entry.id, f[0], f[1], f[2], said.quote, schema, apps)
        ]
        free = [
            f
            for f in fields
            if f[0] in required
            and not f[0].endswith("_template")  # a message's text, not a name or address
            and _open(f[0], f[1], carried, text)
        ]
        if chosen := (named or read or free)[:1]:
            name, _spec, value = chosen[0]
            carried[name] = value
            fired.append("config_value_stated")
        else:
            fired.append("config_stated_value_without_field")
    return carried, fired


def _as_field(name: str, spec: dict[str, Any], text: str) -> Any:
    """The stated text as the field's value, if it fits: a language's code for a language, an
    address written without its scheme ("shop.com/feed") with https:// for a URI field."""
    if name in values.LANGUAGE_FIELDS and text.lower() in languages.CODES:
        text = languages.code(text)
    if spec.get("format") == "uri" and HOST_PATH.match(text):
        text = f"https://{text}"
    candidate: Any = [text] if spec.get("type") == "array" else text
    return candidate if fits(candidate, spec) else None


def _plain(value: Any) -> Any:
    return value[0] if isinstance(value, list) else value


def _item(spec: dict[str, Any]) -> dict[str, Any]:
    items: dict[str, Any] = spec.get("items", {})
    return items if spec.get("type") == "array" else spec


def _reads(
    specialist: str,
    name: str,
    spec: dict[str, Any],
    value: Any,
    quote: str,
    schema: dict[str, Any],
    apps: Collection[str] | None,
) -> bool:
    """Code's reading of the quote fills the field with the value."""
    found = value_from_text(specialist, name, spec, quote, schema["properties"], apps)
    want = _plain(value)
    got = " ".join(str(x) for x in found) if isinstance(found, list) else str(found or "")
    return bool(found) and str(want).lower() in got.lower()


def _holds(config: dict[str, Any], *texts: str) -> bool:
    """Some field holds one of the texts, case and spacing aside."""
    held = [" ".join(str(v).lower().split()) for v in config.values()]
    return any(" ".join(t.lower().split()) in h for t in texts for h in held)


def _text_fields(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Fields that hold text, strings before lists of strings, in the schema's order."""
    props = schema["properties"].items()
    strings = [(n, s) for n, s in props if s.get("type") == "string" and "enum" not in s]
    lists = [
        (n, s)
        for n, s in props
        if s.get("type") == "array" and s.get("items", {}).get("type") == "string"
    ]
    return strings + lists


def _open(name: str, spec: dict[str, Any], config: dict[str, Any], text: str) -> bool:
    """Nobody stated the field's value: it is empty or holds its placeholder."""
    if name not in config:
        return True
    return config[name] == default_value(name, spec) and not _said(config[name], text.lower())


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
    if name in PATTERNED and "pattern" not in spec:
        return f"{PATTERNED[name]} to be chosen"  # no phone stand-in in an address field
    if name in STRING_DEFAULTS:
        return STRING_DEFAULTS[name]
    if name.endswith("_template"):
        return "{summary}"
    return f"{name.replace('_', ' ')} to be chosen"[: spec.get("maxLength", 200)]


def _clamp(value: float, spec: dict[str, Any]) -> float:
    low: float = spec.get("minimum", value)
    high: float = spec.get("maximum", value)
    return min(max(value, low), high)


def normalise(
    draft: dict[str, Any],
    entry: CatalogueEntry,
    text: str,
    operation: str | None = None,
    apps: Collection[str] | None = None,
) -> dict[str, Any]:
    """The config step: trim, drop nulls, fill missing required values, then validate strictly."""
    schema = schema_for(entry, operation)
    config = {k: v.strip() if isinstance(v, str) else v for k, v in draft.items() if v is not None}
    for name in schema.get("required", ()):
        if name not in config:
            spec = schema["properties"][name]
            found = value_from_text(entry.id, name, spec, text, schema["properties"], apps)
            config[name] = found if found is not None else default_value(name, spec)
    check(config, entry, operation)
    return config


def check(config: dict[str, Any], entry: CatalogueEntry, operation: str | None = None) -> None:
    """Raise ConfigInvalid, naming the property, unless `config` satisfies the node's schema."""
    schema = schema_for(entry, operation)
    try:
        validate(config, schema)
        for name, value in config.items():
            check_strings(value, schema["properties"][name], f"$.{name}")
    except SchemaViolation as exc:
        raise ConfigInvalid(f"{entry.name} config is invalid at {exc}") from None


def open_fields(
    schema: CatalogueEntry | dict[str, Any], config: dict[str, Any], text: str
) -> list[str]:
    """The required properties of `config` that hold a placeholder nobody stated: the
    values the user still has to give. `schema` is the node's (schema_for) or an entry."""
    if isinstance(schema, CatalogueEntry):
        schema = schema.config_schema
    lowered = text.lower()
    return [
        name
        for name in schema.get("required", ())
        if name not in config
        or (
            config[name] == default_value(name, schema["properties"][name])
            and not _said(config[name], lowered)
        )
    ]


def _said(value: Any, lowered: str) -> bool:
    # A default the user happened to say ("post it to #general") is theirs, not a placeholder.
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(
        re.search(rf"(?<!\w){re.escape(str(i).lower())}(?!\w)", lowered) for i in items
    )
