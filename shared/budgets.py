"""Time budgets that must nest: a model call inside a step or handler, a handler inside the
consumer's poll interval. Pure arithmetic, no I/O, so a test can hold them to each other.

- A model call (`OpenAIModel.structured`) makes at most MODEL_ATTEMPTS requests, each up
  to the model timeout, with a capped backoff between them.
- A step is re-requested only after it had time for one such call and the work around it,
  so a slow model never fails a workflow that would have succeeded.
- One delivery of a message retries its handler with capped waits, starting a new try only
  within a budget; all of it must end inside Kafka's max_poll_interval, or the group
  evicts the consumer and the partition moves mid-message.
"""

from __future__ import annotations

MODEL_ATTEMPTS = 2  # requests per model call, the repair turn included
MODEL_MAX_BACKOFF_S = 2.0
# What a step does besides its model call: reads, context assembly, writes, a queue wait.
STEP_OVERHEAD_S = 15.0
MAX_POLL_INTERVAL_S = 300.0  # Kafka's (and aiokafka's) default max.poll.interval.ms


def worst_model_call_s(
    timeout_s: float, attempts: int = MODEL_ATTEMPTS, max_backoff_s: float = MODEL_MAX_BACKOFF_S
) -> float:
    """The longest one model call can take: every request times out, with the waits between."""
    return attempts * timeout_s + (attempts - 1) * max_backoff_s


def step_timeout_s(model_timeout_s: float, calls: int = 1) -> float:
    """How long a step attempt may run before it is re-requested: its calls' worst case and more."""
    return calls * worst_model_call_s(model_timeout_s) + STEP_OVERHEAD_S


# A delivery starts another in-process try only this long after it began; past it the
# offset is rewound and the consumer polls again (shared/deadletter.py).
DELIVERY_BUDGET_S = MAX_POLL_INTERVAL_S / 4


def worst_delivery_s(
    handler_worst_s: float, max_backoff_s: float, budget_s: float = DELIVERY_BUDGET_S
) -> float:
    """The longest one delivery holds the consumer between polls: a try may start just
    before the budget runs out, run at its slowest, and wait once after it."""
    return budget_s + handler_worst_s + max_backoff_s
