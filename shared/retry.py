"""What a failed delivery is and how long to wait before the next attempt. Pure, no I/O.

Poison (the bytes can never make a valid message: not JSON, failing the schema, too large)
goes to the dead-letter topic. Everything else is transient until proven otherwise (Redis
or the broker down, a model timing out, another worker holding the event's lease): it is
retried with exponential backoff and full jitter and the offset is not committed, however
long that takes, up to a give-up time after which it is dead-lettered as "exhausted"
(`planwire dlq redrive` puts it back).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from pydantic import ValidationError

from shared.budgets import DELIVERY_BUDGET_S
from shared.idempotency import AlreadyProcessed

Verdict = Literal["duplicate", "poison", "retriable"]


@dataclass(frozen=True)
class RetryPolicy:
    """How a consumer retries one message."""

    attempts: int = 3  # tries within one delivery before the offset is rewound (nack)
    backoff_s: float = 0.2  # the first wait; doubled per failure of the same message
    max_backoff_s: float = 5.0  # a single wait never exceeds this
    give_up_s: float = 900.0  # failing this long on one message dead-letters it ("exhausted")
    delivery_budget_s: float = DELIVERY_BUDGET_S  # no new try after this; rewind and poll

    def try_again(self, tries: int, elapsed_s: float) -> bool:
        """Whether this delivery tries once more, or rewinds so the consumer polls first."""
        return tries < self.attempts and elapsed_s < self.delivery_budget_s

    def wait_s(self, failures: int, rng: random.Random | None = None) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2^(failures-1))] (AWS backoff advice)."""
        ceiling = min(self.max_backoff_s, self.backoff_s * 2 ** max(failures - 1, 0))
        return (rng or random).uniform(0, ceiling)


def classify(exc: BaseException) -> Verdict:
    """Which path a handler's exception takes."""
    if isinstance(exc, AlreadyProcessed):
        return "duplicate"
    if isinstance(exc, ValidationError) or "decode" in type(exc).__name__.lower():
        return "poison"
    return "retriable"
