"""The model port: one structured-output call, whatever answers it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from shared.model.metrics import record_call
from shared.model.sink import emit
from shared.model.tokens import estimate_messages, estimate_reply

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


@dataclass(frozen=True)
class Call:
    """One structured call's arguments, as a backend receives them and a wrapper passes them on."""

    role: str
    messages: list[dict[str, Any]]
    schema: dict[str, Any]
    fallback: Callable[[], dict[str, Any]]
    max_tokens: int = 256
    validate: Callable[[dict[str, Any]], None] | None = None

    async def to(self, port: ModelPort) -> ModelResult:
        """The same call, made on `port`."""
        return await port.structured(
            self.role,
            self.messages,
            self.schema,
            fallback=self.fallback,
            max_tokens=self.max_tokens,
            validate=self.validate,
        )


class Backend:
    """A ModelPort whose `structured` takes its arguments as one `Call` (`answer`)."""

    name = "backend"

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
        return await self.answer(Call(role, messages, schema, fallback, max_tokens, validate))

    async def answer(self, call: Call) -> ModelResult:
        """The call's answer; every backend implements it."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Release connections and any process the backend owns (nothing by default)."""


class PortWrapper(Backend):
    """A ModelPort around another: subclasses change `answer`; everything else is the inner's."""

    def __init__(self, inner: ModelPort) -> None:
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, attribute: str) -> Any:
        if attribute == "inner":  # not set yet (a copy being built): no recursion
            raise AttributeError(attribute)
        return getattr(self.inner, attribute)  # e.g. `.model`, `.server`

    async def answer(self, call: Call) -> ModelResult:
        """The inner port's answer, unchanged."""
        return await call.to(self.inner)

    async def aclose(self) -> None:
        """Close the inner port."""
        await self.inner.aclose()


class HeuristicModel(Backend):
    """The offline default: never calls a model, always answers with `fallback()`.

    The rules themselves live in each service's fallback; this backend only routes to them
    and records the call, so dashboards look the same with or without a model. It reports no
    tokens, unless `estimate_tokens`: then the prompt it was handed and the answer it gave are
    charged at the tokenizer-free estimate (shared/model/tokens.py), to compare prompt sizes.
    """

    name = "heuristic"
    model = "heuristic"
    estimate_tokens = False  # a class default too: subclasses may skip __init__
    streams = False  # its reply is there at once: a caller need not stream it

    def __init__(self, *, estimate_tokens: bool = False) -> None:
        self.estimate_tokens = estimate_tokens

    async def answer(self, call: Call) -> ModelResult:
        """Return the caller's heuristic answer with outcome "heuristic"."""
        started = time.perf_counter()
        data = call.fallback()
        prompt, completion = (
            (estimate_messages(call.messages), estimate_reply(data))
            if self.estimate_tokens
            else (0, 0)
        )
        latency = time.perf_counter() - started
        record_call(call.role, "heuristic", latency, prompt, completion)
        if isinstance(data.get("text"), str):  # a streamed call gets its reply in one piece
            await emit(data["text"])
        return ModelResult(data, "heuristic", prompt, completion, latency)


class SimulatedLatencyModel(PortWrapper):
    """Another port's answers, each after an asynchronous sleep: a model that takes time.

    For `planwire bench --model-latency-ms`: wrapped around the heuristic backend it makes
    each call I/O-bound the way a remote model is (the handler waits, the process stays free
    for other messages), so scaling by replicas can be measured without a language model.
    The answers are the inner port's, unchanged; the sleep is added to the reported latency.
    """

    def __init__(self, inner: ModelPort, latency_s: float) -> None:
        if latency_s < 0:
            raise ValueError(f"a simulated latency cannot be negative: {latency_s}")
        super().__init__(inner)
        self.latency_s = latency_s

    async def answer(self, call: Call) -> ModelResult:
        """Sleep, then the inner port's answer (with the sleep in its latency)."""
        await asyncio.sleep(self.latency_s)
        result = await call.to(self.inner)
        return ModelResult(
            result.data,
            result.outcome,
            result.prompt_tokens,
            result.completion_tokens,
            result.latency_s + self.latency_s,
        )
