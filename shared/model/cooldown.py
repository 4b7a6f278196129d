"""Per-role cool-down: after two failed calls in a row a role answers from rules for a while.

A model that is down or broken costs every call its full retry budget (two timeouts, say)
before the fallback answers. After `threshold` consecutive failed calls of one role, this
wrapper skips the model for that role for `cooldown_s` seconds and answers with the
caller's fallback at once; the first call after the cool-down tries the model again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from shared.model.metrics import COOLDOWNS, record_call
from shared.model.port import Call, ModelPort, ModelResult, PortWrapper

FAILED = ("fallback",)


class CoolDownModel(PortWrapper):
    """A ModelPort that stops calling a failing model per role for `cooldown_s` seconds."""

    def __init__(
        self,
        inner: ModelPort,
        cooldown_s: float,
        threshold: int = 2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(inner)
        self.cooldown_s, self.threshold, self.clock = cooldown_s, threshold, clock
        self.failures: dict[str, int] = {}
        self.cool_until: dict[str, float] = {}

    def cooling(self, role: str) -> bool:
        """Whether `role` is in its cool-down now."""
        return self.clock() < self.cool_until.get(role, 0.0)

    async def answer(self, call: Call) -> ModelResult:
        """The inner answer, or the fallback at once while the role cools down."""
        if self.cooling(call.role):
            started = time.perf_counter()
            data = call.fallback()
            latency = time.perf_counter() - started
            record_call(call.role, "heuristic", latency, 0, 0)
            return ModelResult(data, "heuristic", 0, 0, latency)
        result = await call.to(self.inner)
        self._note(call.role, result.outcome in FAILED)
        return result

    def _note(self, role: str, failed: bool) -> None:
        """Count consecutive failures; at the threshold, start the role's cool-down."""
        self.failures[role] = self.failures.get(role, 0) + 1 if failed else 0
        if self.failures[role] >= self.threshold and self.cooldown_s > 0:
            self.cool_until[role] = self.clock() + self.cooldown_s
            self.failures[role] = 0
            COOLDOWNS.labels(role).inc()
