"""Dead-letter middleware: poison goes to `<topic>.dlq`, transient failures are retried.

Poison means not JSON, failing its schema, or over the size limit: retrying cannot help, so
the message is parked with the reason in headers and the offset is committed. Any other
failure is transient (`shared.retry`): it is retried with backoff and jitter inside the
delivery, then the offset is rewound (`NackMessage`: the consumer seeks back and the message
comes again), so nothing is committed before it succeeded. A message failing for longer than
the policy's give-up time is dead-lettered as "exhausted". A dead-letter publish that fails
rewinds too: an offset is never committed for a message that is neither handled nor parked.
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial
from typing import Any

from faststream import BaseMiddleware
from faststream.exceptions import NackMessage
from prometheus_client import Counter

from shared.retry import RetryPolicy, classify

log = logging.getLogger("planwire.deadletter")

DEAD_LETTERS = Counter(
    "planwire_dlq_messages_total", "Messages sent to a dead-letter topic.", ["topic", "reason"]
)
DUPLICATES = Counter(
    "planwire_duplicate_messages_total", "Redelivered messages skipped by dedupe.", ["topic"]
)
HANDLER_RETRIES = Counter(
    "planwire_handler_retries_total", "Handler re-runs after a transient failure.", ["topic"]
)
REWINDS = Counter(
    "planwire_handler_rewinds_total",
    "Deliveries left uncommitted for a later retry (offset rewound).",
    ["topic"],
)
# A message failing now: (topic, partition, offset) -> (failures, first failure time). One
# entry per stuck partition at most; dropped when the message is handled or parked.
_failing: dict[tuple[str, int, int], tuple[int, float]] = {}


class TooLarge(ValueError):
    """The message is larger than the configured limit."""


class DeadLetterMiddleware(BaseMiddleware):
    """Wraps every consumed message of a broker; see the module docstring."""

    def __init__(self, msg: Any, /, *, context: Any, max_bytes: int, policy: RetryPolicy) -> None:
        super().__init__(msg, context=context)
        self.max_bytes, self.policy = max_bytes, policy

    @classmethod
    def factory(cls, *, max_bytes: int, policy: RetryPolicy | None = None) -> Any:
        """A per-message constructor as FastStream's `middlewares=` expects."""
        return partial(cls, max_bytes=max_bytes, policy=policy or RetryPolicy())

    async def consume_scope(self, call_next: Any, msg: Any) -> Any:
        record = msg.raw_message
        where = (record.topic, record.partition, record.offset)
        if len(msg.body or b"") > self.max_bytes:
            error = TooLarge(f"{len(msg.body)} bytes > {self.max_bytes}")
            return await self._dead_letter(msg, "too_large", error)
        started, tries = time.monotonic(), 0
        while tries == 0 or self.policy.try_again(tries, time.monotonic() - started):
            tries += 1
            try:
                result = await call_next(msg)
            except Exception as exc:
                verdict = classify(exc)
                if verdict == "duplicate":
                    DUPLICATES.labels(record.topic).inc()
                    return self._settled(where)
                if verdict == "poison":
                    await self._dead_letter(msg, "schema", exc)
                    return self._settled(where)
                if await self._gave_up(msg, where, exc):
                    return self._settled(where)
            else:
                return self._settled(where, result)
        REWINDS.labels(record.topic).inc()
        raise NackMessage()

    async def _gave_up(self, msg: Any, where: tuple[str, int, int], exc: Exception) -> bool:
        """Count a transient failure; wait before the next try, or park it once past give-up."""
        failures, since = _failing.get(where, (0, time.monotonic()))
        _failing[where] = (failures + 1, since)
        log.warning("handler failed on %s (failure %d): %r", where[0], failures + 1, exc)
        if time.monotonic() - since > self.policy.give_up_s:
            await self._dead_letter(msg, "exhausted", exc)
            return True
        HANDLER_RETRIES.labels(where[0]).inc()
        # Also after the last try: a rewound delivery comes back at once, so the wait is here.
        await asyncio.sleep(self.policy.wait_s(failures + 1))
        return False

    @staticmethod
    def _settled(where: tuple[str, int, int], result: Any = None) -> Any:
        _failing.pop(where, None)
        return result

    async def _dead_letter(self, msg: Any, reason: str, error: BaseException) -> None:
        """Park the message; if that publish fails, rewind instead of committing."""
        record = msg.raw_message
        headers = {
            "x-dlq-reason": reason,
            "x-dlq-error": str(error)[:1000],
            "x-dlq-topic": record.topic,
            "x-dlq-partition": str(record.partition),
            "x-dlq-offset": str(record.offset),
        }
        broker = self.context.get("broker")
        try:
            await broker.publish(
                msg.body or b"", f"{record.topic}.dlq", key=record.key, headers=headers
            )
        except Exception as exc:
            log.error("could not dead-letter a message from %s: %r", record.topic, exc)
            REWINDS.labels(record.topic).inc()
            raise NackMessage() from exc
        DEAD_LETTERS.labels(record.topic, reason).inc()
        log.error(
            "dead-lettered a message from %s: %s: %s", record.topic, reason, headers["x-dlq-error"]
        )
