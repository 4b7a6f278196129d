"""A reply's text as the model writes it: where a streaming backend sends its pieces.

The conversation sets a sink around the one call whose reply it streams (`streaming_to`);
a backend that can stream (`streams = True`: OpenAI-compatible servers, the bench's simulated
streaming model) hands each new piece of the reply's `text` field to it (`emit`) while it
reads the answer, and answers the call as before. Every other call, in every other service,
has no sink and is not streamed. A context variable carries the sink, so the wrappers
between the caller and the backend (cool-down, usage, chaos) pass it through untouched.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from shared.model.port import Call, ModelResult, PortWrapper
from shared.model.sink import _SINK, emit, sink, streaming_to

__all__ = ["SimulatedStreamingModel", "can_stream", "emit", "partial_text", "sink", "streaming_to"]


def can_stream(port: object) -> bool:
    """True for a port whose backend streams replies (wrappers pass the question inward)."""
    return bool(getattr(port, "streams", False))


_FIELD = re.compile(r'"text"\s*:\s*"')


def partial_text(prefix: str, field: str = "text") -> str:
    """The decoded value of `field` in a JSON object of which `prefix` is the start so far.

    A model streaming structured output writes `{"text": "Which chan` before the rest: this
    returns `Which chan` (escapes decoded, an escape cut in half left for the next piece).
    """
    match = _FIELD.search(prefix) if field == "text" else re.search(rf'"{field}"\s*:\s*"', prefix)
    if match is None:
        return ""
    raw, end = prefix[match.end() :], None
    i = 0
    while i < len(raw):
        if raw[i] == "\\":
            i += 2
            continue
        if raw[i] == '"':
            end = i
            break
        i += 1
    body = raw if end is None else raw[:end]
    for cut in range(len(body), max(len(body) - 6, -1), -1):  # drop a half-written escape
        try:
            decoded: str = json.loads(f'"{body[:cut]}"')
            return decoded
        except json.JSONDecodeError:
            continue
    return ""


def pieces(text: str) -> list[str]:
    """A reply split into word-sized pieces (each keeps the space before it)."""
    return re.findall(r"\s*\S+", text) or ([text] if text else [])


class SimulatedStreamingModel(PortWrapper):
    """The inner port's answers, a streamed call's text written piece by piece: the first
    after `first_token_s`, each next one `token_s` later (`planwire bench
    --model-first-token-ms/--model-token-ms`). A call nobody streams answers as the inner does.
    """

    streams = True

    def __init__(self, inner: Any, first_token_s: float, token_s: float) -> None:
        if first_token_s < 0 or token_s < 0:
            raise ValueError("simulated token times cannot be negative")
        super().__init__(inner)
        self.first_token_s, self.token_s = first_token_s, token_s

    async def answer(self, call: Call) -> ModelResult:
        """The inner answer; with a sink, its `text` is written out at the simulated pace."""
        if sink() is None:
            return await call.to(self.inner)
        started = time.perf_counter()
        quiet = _SINK.set(None)  # the inner port's own pieces would come all at once
        try:
            result = await call.to(self.inner)
        finally:
            _SINK.reset(quiet)
        await asyncio.sleep(self.first_token_s)
        for i, piece in enumerate(pieces(str(result.data.get("text", "")))):
            if i:
                await asyncio.sleep(self.token_s)
            await emit(piece)
        latency = result.latency_s + time.perf_counter() - started
        return ModelResult(
            result.data, result.outcome, result.prompt_tokens, result.completion_tokens, latency
        )
