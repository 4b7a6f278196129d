"""The OpenAI-compatible backend: structured output with bounded retries and one repair."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema

from shared.budgets import MODEL_ATTEMPTS as MAX_ATTEMPTS
from shared.budgets import MODEL_MAX_BACKOFF_S as MAX_BACKOFF_S
from shared.model.metrics import ATTEMPT_FAILURES, REPAIRS, RETRIES, record_call
from shared.model.output import InvalidOutput, parse_reply, repair_turns
from shared.model.port import Backend, Call, ModelResult
from shared.model.sink import emit, sink
from shared.model.streaming import partial_text

log = logging.getLogger(__name__)


@dataclass
class _Call:
    """The state of one structured call across its attempts."""

    role: str
    messages: list[dict[str, Any]]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0
    repairing: bool = False
    started: float = field(default_factory=time.perf_counter)


class OpenAIModel(Backend):
    """Any server speaking OpenAI chat completions (OpenAI, vLLM, Ollama, llama.cpp).

    Transport failures are retried with exponential backoff; invalid output gets exactly one
    repair turn; after `max_attempts` failures in total the caller's fallback answers.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str | None,
        model: str,
        api_key: str,
        timeout_s: float,
        max_attempts: int = MAX_ATTEMPTS,
        backoff_s: float = 0.2,
        max_backoff_s: float = MAX_BACKOFF_S,
    ) -> None:
        self.model = model
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        # The client's own retries are off so that every retry is ours, bounded and counted.
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0
        )

    streams = True  # `_request` reads a streamed call's reply as the server writes it

    async def answer(self, request: Call) -> ModelResult:
        """Ask the model for an object matching `schema`; fall back after repeated failure."""
        role = request.role
        call = _Call(role, list(request.messages))
        data = await self._attempts(call, request.schema, request.max_tokens, request.validate)
        outcome = "fallback" if data is None else ("repaired" if call.repairing else "ok")
        if call.repairing:
            REPAIRS.labels(role, "success" if data is not None else "failure").inc()
        if data is None:
            data = request.fallback()
        latency = time.perf_counter() - call.started
        record_call(role, outcome, latency, call.prompt_tokens, call.completion_tokens)
        return ModelResult(data, outcome, call.prompt_tokens, call.completion_tokens, latency)

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.close()

    async def _attempts(
        self,
        call: _Call,
        schema: dict[str, Any],
        max_tokens: int,
        validate: Callable[[dict[str, Any]], None] | None,
    ) -> dict[str, Any] | None:
        """Run attempts until one is valid (the object) or the budget is spent (None)."""
        while call.failures < self.max_attempts:
            try:
                text = await self._request(call, schema, max_tokens)
            except openai.OpenAIError as exc:
                if not self._note_transport_failure(call, exc):
                    return None
                await asyncio.sleep(self._backoff(call.failures))
                continue
            try:
                return parse_reply(text, schema, validate)
            except InvalidOutput as exc:
                if not self._note_invalid(call, text, exc):
                    return None
        return None

    async def _request(self, call: _Call, schema: dict[str, Any], max_tokens: int) -> str | None:
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {"name": _schema_name(call.role), "schema": schema, "strict": True},
        }
        if sink() is not None:  # the caller streams this reply: read it as it is written
            return await self._streamed(call, response_format, max_tokens)
        response = await self._client.chat.completions.create(
            model=self.model,
            # The prompts build plain {"role", "content"} dicts: the shape these TypedDicts name.
            messages=cast("list[ChatCompletionMessageParam]", call.messages),
            temperature=0,
            max_tokens=max_tokens,
            response_format=response_format,
        )
        if response.usage is not None:
            call.prompt_tokens += response.usage.prompt_tokens or 0
            call.completion_tokens += response.usage.completion_tokens or 0
        return response.choices[0].message.content if response.choices else None

    async def _streamed(
        self, call: _Call, response_format: ResponseFormatJSONSchema, max_tokens: int
    ) -> str:
        """The same request with `stream=True`: each new piece of the reply's `text` field
        goes to the caller's sink as it arrives; returns the whole content as `_request`."""
        stream = await self._client.chat.completions.create(
            model=self.model,
            messages=cast("list[ChatCompletionMessageParam]", call.messages),
            temperature=0,
            max_tokens=max_tokens,
            response_format=response_format,
            stream=True,
            stream_options={"include_usage": True},
        )
        content, shown = "", ""
        async for chunk in stream:
            if chunk.usage is not None:
                call.prompt_tokens += chunk.usage.prompt_tokens or 0
                call.completion_tokens += chunk.usage.completion_tokens or 0
            if chunk.choices and chunk.choices[0].delta.content:
                content += chunk.choices[0].delta.content
                text = partial_text(content)
                if len(text) > len(shown) and text.startswith(shown):
                    await emit(text[len(shown) :])
                    shown = text
        return content

    def _note_transport_failure(self, call: _Call, exc: openai.OpenAIError) -> bool:
        """Count a transport failure; True when another attempt is allowed."""
        reason, retryable = _classify(exc)
        call.failures += 1
        ATTEMPT_FAILURES.labels(call.role, reason).inc()
        log.warning("model call %s failed (%s): %s", call.role, reason, exc)
        if retryable and call.failures < self.max_attempts:
            RETRIES.labels(call.role).inc()
            return True
        return False

    def _note_invalid(self, call: _Call, text: str | None, exc: InvalidOutput) -> bool:
        """Count invalid output; True when a repair turn was added to the conversation."""
        call.failures += 1
        ATTEMPT_FAILURES.labels(call.role, exc.reason).inc()
        log.warning("model call %s returned invalid output (%s): %s", call.role, exc.reason, exc)
        if call.repairing or call.failures >= self.max_attempts:
            return False
        call.repairing = True
        call.messages = call.messages + repair_turns(text, str(exc))
        return True

    def _backoff(self, failures: int) -> float:
        return min(self.backoff_s * 2.0 ** (failures - 1), self.max_backoff_s)


def _classify(exc: openai.OpenAIError) -> tuple[str, bool]:
    """Map a client error to (reason, retryable)."""
    if isinstance(exc, openai.APITimeoutError):
        return "timeout", True
    if isinstance(exc, openai.APIConnectionError):
        return "http_error", True
    if isinstance(exc, openai.APIStatusError):
        # Other 4xx (bad request, auth) will fail the same way again: do not spend a retry.
        return "http_error", exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return "http_error", False


def _schema_name(role: str) -> str:
    # OpenAI accepts only [A-Za-z0-9_-]{1,64} as a schema name.
    return re.sub(r"[^A-Za-z0-9_-]", "_", role)[:64] or "output"
