"""The model port: one structured-output call, whatever answers it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from shared.model.metrics import record_call

OUTCOMES = ("ok", "repaired", "fallback", "heuristic")


@dataclass(frozen=True)
class ModelResult:
    """What a structured call produced and what it cost."""

    data: dict[str, Any]  # the validated JSON object (from the model, or from the fallback)
    outcome: str  # "ok" | "repaired" | "fallback" | "heuristic"
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


@runtime_checkable
class ModelPort(Protocol):
    """A backend that turns messages into one JSON object matching `schema`.

    Implementations never raise for model problems: when the model cannot produce valid
    output they return `fallback()`, so the caller's structure always survives.
    """

    name: str  # "heuristic" | "openai"; the model's own name is recorded as `.model`

    async def structured(
        self,
        role: str,
        messages: list[dict[str, Any]],
        schema: dict[str, Any],
        *,
        fallback: Callable[[], dict[str, Any]],
        max_tokens: int = 256,
        validate: Callable[[dict[str, Any]], None] | None = None,
    ) -> ModelResult:
        """Return a JSON object for `role` that satisfies `schema` and `validate`."""
        ...

    async def aclose(self) -> None:
        """Release connections and any process the backend owns."""
        ...


class HeuristicModel:
    """The offline default: never calls a model, always answers with `fallback()`.

    The rules themselves live in each service's fallback; this backend only routes to them
    and records the call, so dashboards look the same with or without a model.
    """

    name = "heuristic"
    model = "heuristic"

    async def structured(
        self,
        role: str,
        messages: list[dict[str, Any]],
        schema: dict[str, Any],
        *,
        fallback: Callable[[], dict[str, Any]],
        max_tokens: int = 256,
        validate: Callable[[dict[str, Any]], None] | None = None,
    ) -> ModelResult:
        """Return the caller's heuristic answer with outcome "heuristic"."""
        started = time.perf_counter()
        data = fallback()
        latency = time.perf_counter() - started
        record_call(role, "heuristic", latency, 0, 0)
        return ModelResult(data, "heuristic", 0, 0, latency)

    async def aclose(self) -> None:
        """Nothing to release."""
