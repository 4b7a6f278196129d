"""A tokenizer-free estimate of what a prompt costs, for backends that report no usage.

The trimmer's estimate (services/trimmer/logic.py, shared/recall.py): ~4 characters per token
(OpenAI's rule of thumb for English) and +4 per message for its role and framing. The
heuristic backend sends no prompt anywhere, but its callers build the whole prompt all the
same; with `PLANWIRE_MODEL_ESTIMATE_TOKENS=1` it charges that prompt's estimate, so prompt
sizes can be compared without a language model (`planwire eval --compare naive`).
"""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4


def estimate_text(text: str) -> int:
    """Tokens of one text, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_messages(messages: list[dict[str, Any]]) -> int:
    """Tokens of chat messages: each one's content plus its framing."""
    return sum(estimate_text(str(m.get("content", ""))) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def estimate_reply(data: dict[str, Any]) -> int:
    """Tokens of a JSON reply as a model would write it."""
    return estimate_text(json.dumps(data))
