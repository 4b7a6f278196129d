"""Dead-letter middleware: poison messages go to `<topic>.dlq`, the consumer keeps going.

Poison means not JSON, failing its schema, or over the size limit: retrying cannot help, so
the message is parked with the reason in headers and the offset is committed. Any other
failure is retried a bounded number of times, then dead-lettered the same way.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import Any

from faststream import BaseMiddleware
from prometheus_client import Counter
from pydantic import ValidationError

from shared.idempotency import AlreadyProcessed

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


class TooLarge(ValueError):
    """The message is larger than the configured limit."""


class DeadLetterMiddleware(BaseMiddleware):
    """Wraps every consumed message of a broker; see the module docstring."""

    def __init__(
        self, msg: Any, /, *, context: Any, max_bytes: int, attempts: int, backoff_s: float
    ) -> None:
        super().__init__(msg, context=context)
        self.max_bytes, self.attempts, self.backoff_s = max_bytes, attempts, backoff_s

    @classmethod
    def factory(cls, *, max_bytes: int, attempts: int, backoff_s: float = 0.2) -> Any:
        """A per-message constructor as FastStream's `middlewares=` expects."""
        return partial(cls, max_bytes=max_bytes, attempts=attempts, backoff_s=backoff_s)

    async def consume_scope(self, call_next: Any, msg: Any) -> Any:
        record = msg.raw_message
        if len(msg.body or b"") > self.max_bytes:
            return await self._dead_letter(
                msg, "too_large", TooLarge(f"{len(msg.body)} bytes > {self.max_bytes}")
            )
        for attempt in range(1, self.attempts + 1):
            try:
                return await call_next(msg)
            except AlreadyProcessed:
                DUPLICATES.labels(record.topic).inc()
                return None
            except (ValidationError, ValueError, TypeError) as exc:
                if _is_poison(exc):
                    return await self._dead_letter(msg, "schema", exc)
                error: Exception = exc
            except Exception as exc:
                error = exc
            log.warning(
                "handler failed on %s (attempt %d/%d): %r",
                record.topic,
                attempt,
                self.attempts,
                error,
            )
            if attempt < self.attempts:
                HANDLER_RETRIES.labels(record.topic).inc()
                await asyncio.sleep(self.backoff_s * 2 ** (attempt - 1))
        return await self._dead_letter(msg, "processing", error)

    async def _dead_letter(self, msg: Any, reason: str, error: BaseException) -> None:
        record = msg.raw_message
        headers = {
            "x-dlq-reason": reason,
            "x-dlq-error": str(error)[:1000],
            "x-dlq-topic": record.topic,
            "x-dlq-partition": str(record.partition),
            "x-dlq-offset": str(record.offset),
        }
        broker = self.context.get("broker")
        await broker.publish(
            msg.body or b"", f"{record.topic}.dlq", key=record.key, headers=headers
        )
        DEAD_LETTERS.labels(record.topic, reason).inc()
        log.error(
            "dead-lettered a message from %s: %s: %s", record.topic, reason, headers["x-dlq-error"]
        )


def _is_poison(exc: BaseException) -> bool:
    """Decoding and validation failures: the bytes themselves are wrong."""
    return isinstance(exc, ValidationError) or "decode" in type(exc).__name__.lower()
