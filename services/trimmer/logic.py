"""Change-unit trimming: pure rules, no I/O.

A change unit is one full cycle of the user describing something and the system
acknowledging it: the user's message(s) and the assistant replies that follow, up to the
next user message after a reply. History is trimmed by dropping whole units, oldest first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from schemas.turn import ChatMessage

# Without a tokenizer from the backend, ~4 characters per token is the usual estimate for
# English text (OpenAI's rule of thumb); +4 per message covers role and framing tokens.
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """A documented estimate of a text's token count."""
    return -(-len(text) // CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS


def group_units(messages: Sequence[ChatMessage]) -> list[list[ChatMessage]]:
    """Split a transcript into change units, oldest first."""
    units: list[list[ChatMessage]] = []
    for message in messages:
        starts_unit = message.role == "user" and (not units or units[-1][-1].role == "assistant")
        if starts_unit or not units:
            units.append([])
        units[-1].append(message)
    return units


def unit_tokens(unit: Sequence[ChatMessage], count: TokenCounter) -> int:
    """Tokens a unit costs in the prompt."""
    return sum(count(m.text) for m in unit)


def trim(
    messages: Sequence[ChatMessage], budget: int, count: TokenCounter = estimate_tokens
) -> tuple[list[ChatMessage], int]:
    """Keep the newest whole units within `budget`; the latest unit is always kept.

    Returns the kept messages (oldest first) and how many units were dropped.
    """
    units = group_units(messages)
    kept: list[list[ChatMessage]] = []
    used = 0
    for unit in reversed(units):
        cost = unit_tokens(unit, count)
        if kept and used + cost > budget:
            break
        kept.append(unit)
        used += cost
    kept.reverse()
    return [m for unit in kept for m in unit], len(units) - len(kept)


def outside_window(turn_seq: int, keep_turns: int | None) -> int:
    """Turns before the stored window when turn `turn_seq` arrives (each one change unit):
    the transcript keeps the newest `keep_turns` turns (None: all)."""
    return max(0, turn_seq - keep_turns) if keep_turns else 0
