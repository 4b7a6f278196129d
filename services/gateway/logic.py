"""Gateway rules: input limits, ids, Server-Sent Events framing. Pure, no I/O."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import unicodedata
from typing import Any

from catalog import Catalogue
from schemas.outline import Outline, OutlineAction
from schemas.turn import MAX_MESSAGE_CHARS

MAX_MESSAGE_BYTES = 8 * 1024
# A Redis stream id: two unsigned 64-bit parts. ASCII digits only (`\d` takes any script's
# digits, which Redis does not), and at most 20 of each (2**64 - 1 has 20; `int` refuses
# strings over 4,300 digits).
STREAM_ID = re.compile(r"([0-9]{1,20})-([0-9]{1,20})")
STREAM_PART_MAX = 2**64 - 1


class BadInput(ValueError):
    """The request is well-formed HTTP but its content is not acceptable."""


def validate_message(text: str) -> str:
    """The message to forward: non-empty after trimming, at most 8 KB of UTF-8, no hidden text.

    Hidden characters (`HIDDEN_RULES`) are refused, not stripped, wherever they are, the ends
    included (they are looked for before trimming): they change what a reader or a model
    sees without showing themselves ("Trojan Source"; tag characters spell out instructions a
    model reads and a person cannot see), and a client that sends them should learn so.
    """
    if found := HIDDEN.search(text):
        raise BadInput(hidden_refusal(found.group(), found.start()))
    stripped = text.strip()
    if not stripped:
        raise BadInput("message text is empty")
    size = len(stripped.encode())
    if size > MAX_MESSAGE_BYTES or len(stripped) > MAX_MESSAGE_CHARS:
        raise BadInput(f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
    return stripped


# What a message may not carry, anywhere in it: the rule, its characters, what they are.
HIDDEN_RULES = (
    (
        "no-control-characters",
        "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f",  # C0 but tab, LF, CR; DEL; C1
        "control characters other than tab, newline and carriage return",
    ),
    (
        "no-bidi-controls",
        "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069",  # marks, embeddings, overrides, isolates
        "bidirectional marks, embeddings, overrides and isolates",
    ),
    (
        "no-zero-width-characters",
        "\u180e\u200b-\u200d\u2060-\u2064\ufeff",  # spaces, joiners, invisible operators, BOM
        "zero-width and invisible characters (joiners included)",
    ),
    ("no-tag-characters", "\U000e0000-\U000e007f", "Unicode tag characters"),
)
HIDDEN = re.compile("[" + "".join(chars for _, chars, _ in HIDDEN_RULES) + "]")


def hidden_refusal(char: str, position: int) -> str:
    """Why a message holding `char` at `position` is refused: the character and its rule."""
    rule, what = next(
        (rule, what) for rule, chars, what in HIDDEN_RULES if re.fullmatch(f"[{chars}]", char)
    )
    name = unicodedata.name(char, "")
    return (
        f"message contains U+{ord(char):04X}{' ' + name if name else ''} at position "
        f"{position}; rule {rule}: {what} are not accepted anywhere in a message"
    )


IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,128}$")
PLAUSIBLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def idempotency_key(value: str | None) -> str | None:
    """An Idempotency-Key header: 1 to 128 visible ASCII characters, or absent."""
    if value is None:
        return None
    if not IDEMPOTENCY_KEY.match(value):
        raise BadInput("Idempotency-Key must be 1 to 128 visible ASCII characters")
    return value


def plausible_id(value: str) -> bool:
    """Whether a path id could name a session or workflow (others are a 404 without a lookup)."""
    return bool(PLAUSIBLE_ID.match(value))


def fingerprint(text: str) -> str:
    """What identifies a message's content when a retry reuses its Idempotency-Key."""
    return hashlib.sha256(text.encode()).hexdigest()


def new_session_id() -> str:
    """An unguessable session id that fits the envelope's pattern."""
    return secrets.token_hex(12)


def new_turn_id() -> str:
    """A turn id, unique within its session."""
    return "t-" + secrets.token_hex(8)


def sse_frame(event_id: str, event_type: str, data: dict[str, Any]) -> str:
    """One Server-Sent Event; the id lets a reconnecting client resume after it."""
    return (
        f"id: {event_id}\nevent: {event_type}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
    )


def is_stream_id(value: str) -> bool:
    """Whether Redis takes `value` as a stream id: `<ms>-<seq>`, each part below 2**64."""
    found = STREAM_ID.fullmatch(value)
    return found is not None and all(int(part) <= STREAM_PART_MAX for part in found.groups())


def resume_point(last_event_id: str | None, after: str | None = None) -> str:
    """Where to start reading the session's event stream: after the client's last id (the
    `Last-Event-ID` header, else the `after` query parameter), or from the start when it
    sent neither. BadInput for a cursor Redis would refuse: it is checked here, never sent,
    so it cannot fail a read (services/gateway/outbox.py)."""
    cursor, source = (last_event_id or "").strip(), "Last-Event-ID"
    if not cursor:
        cursor, source = (after or "").strip(), "after"
    if not cursor:
        return "0-0"
    if not is_stream_id(cursor):
        raise BadInput(
            f"{source} must be an event id from this stream: two whole numbers joined by '-', "
            f"each at most {STREAM_PART_MAX} (e.g. 1700000000000-0)"
        )
    return cursor


def outline_view(session_id: str, outline: Outline) -> dict[str, Any]:
    """The session's outline as the API returns it: each level with its turn range."""

    def span(actions: list[OutlineAction]) -> dict[str, int | None]:
        return {
            "first_turn": actions[0].first_turn if actions else None,
            "last_turn": actions[-1].last_turn if actions else None,
        }

    def action_view(a: OutlineAction) -> dict[str, Any]:
        return a.model_dump(
            include={"first_turn", "last_turn", "turn_ids", "summary", "ids", "decided_by"}
        )

    phases: list[dict[str, Any]] = []
    for phase in outline.phases:
        topics = [
            {"title": t.title, "turns": t.turns, **span(t.actions)}
            | {"actions": [action_view(a) for a in t.actions]}
            for t in phase.topics
        ]
        every = [a for t in phase.topics for a in t.actions]
        phases.append({"title": phase.title, "turns": phase.turns, **span(every), "topics": topics})
    indexed = sum(phase.turns for phase in outline.phases)
    return {"session_id": session_id, "turns_indexed": indexed, "phases": phases}


def catalogue_view(catalogue: Catalogue, threshold: float) -> dict[str, Any]:
    """What the page needs to show notes: each id's name and kind, and the threshold."""
    return {
        "threshold": threshold,
        "entries": {e.id: {"name": e.name, "kind": e.kind} for e in catalogue.entries},
    }
