"""One config value from the user's words, if one fits the property's schema. Pure.

Values the user tied to an app come first (stated.py: names, addresses, languages, ... from
the sentences of that app, or of none); then the whole-text finders (extract.py) and the
schedule (crons.py); an enum choice, a currency and field lists as before.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from catalog.values import crons, extract, lists, owners, stated
from catalog.values.lists import FIELD_LISTS
from shared.model.jsonschema_lite import SchemaViolation, validate

# Kinds only one app takes, read from the whole text (channels, phones: stated.py).
FINDERS = {"cron": crons.cron, "timezone": extract.timezone}


def value_from_text(
    specialist: str,
    name: str,
    spec: dict[str, Any],
    text: str,
    properties: Collection[str] | None = None,
    apps: Collection[str] | None = None,
) -> Any:
    """A value for property `name` of a `specialist` node from the user's words, if one fits.

    `properties` are the node's schema's (default: every property the app has anywhere),
    so a name goes to the property closest to its noun; `apps`, the plan's, limit whose
    sentences count as another app's.
    """
    if name == "currency":
        return _fitting(extract.currency(text), spec)
    if "enum" in spec:
        return _fitting(extract.enum_choice(spec["enum"], text), spec)
    if spec.get("type") == "array" and name in FIELD_LISTS:
        limit = spec.get("maxItems", 30)
        # The list the user gave, else field names said where the app is ("the vendor and
        # total in the sheet").
        listed = lists.fields_for(specialist, text, apps, limit)
        named = listed or extract.fields(lists.said_for(specialist, text, apps))[:limit]
        return _fitting(named or None, spec)
    said = stated.stated_value(
        specialist, name, properties or owners.properties_of(specialist), text, apps
    )
    if specialist == "gmail" and name == "query":
        return _fitting(gmail_query(text, said), spec)
    for value in said:
        shaped = stated.as_property(value, spec)
        if _fitting(shaped, spec) is not None and not _phone_as_address(name, spec, value):
            return shaped
    return _fitting(_whole_text(name, spec, text), spec)


def _whole_text(name: str, spec: dict[str, Any], text: str) -> Any:
    if spec.get("format") == "uri" or name in ("url", "feed_url"):
        return extract.url(text)
    if name == "include_attachments" and re.search(
        r"\b(pdfs?|attachments?)\b", text, re.IGNORECASE
    ):
        return True
    return FINDERS[name](text) if name in FINDERS else None


def _phone_as_address(name: str, spec: dict[str, Any], value: str) -> bool:
    # An e-mail "to" has no pattern to refuse a phone number with; refuse it here.
    return name == "to" and "pattern" not in spec and value.startswith("+")


def gmail_query(text: str, said: list[str] | None = None) -> str | None:
    """A Gmail search from the user's words: the mailbox they named, attachments, invoices."""
    lowered = text.lower()
    terms = [*(said or [])[:1]] + [
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


def _fitting(value: Any, spec: dict[str, Any]) -> Any:
    return value if value is not None and fits(value, spec) else None


def fits(value: Any, spec: dict[str, Any]) -> bool:
    """True when one property value satisfies its schema."""
    try:
        validate(value, spec)
        check_strings(value, spec, "$")
    except SchemaViolation:
        return False
    return True


def check_strings(value: Any, spec: dict[str, Any], path: str) -> None:
    """The string keywords the lite validator leaves out: pattern and format uri."""
    if isinstance(value, list) and isinstance(spec.get("items"), dict):
        for index, item in enumerate(value):
            check_strings(item, spec["items"], f"{path}[{index}]")
    if not isinstance(value, str):
        return
    if "pattern" in spec and not re.search(spec["pattern"], value):
        raise SchemaViolation(path, f"{value!r} does not match {spec['pattern']!r}")
    if spec.get("format") == "uri" and not re.match(
        r"^[a-z][a-z0-9+.-]*://\S+$", value, re.IGNORECASE
    ):
        raise SchemaViolation(path, f"{value!r} is not a URI")
