"""The chaos backend: another backend's answers, spoiled on a seeded share of attempts.

`PLANWIRE_MODEL=chaos` wraps `PLANWIRE_CHAOS_INNER` (default heuristic). Each attempt draws,
from a hash of the seed, the role, the messages and the attempt number, whether it fails and
how: a timeout (it waits `delay_s` first), a server error, invalid JSON, JSON that breaks the
schema, or invented catalogue names (an id the schema allows but nobody said, or one outside
the catalogue). The spoiled text goes through the same checks as a real model's reply, with
the same budget as the OpenAI backend: two attempts, a repair turn after invalid output, then
the caller's fallback. The same conversation draws the same faults, so a failure replays.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import random
import time
from collections.abc import Callable
from typing import Any

from shared.model.metrics import ATTEMPT_FAILURES, REPAIRS, RETRIES, record_call
from shared.model.output import InvalidOutput, parse_reply
from shared.model.port import Call, ModelPort, ModelResult, PortWrapper

FAULTS = ("timeout", "error", "invalid_json", "schema", "invented")
MADE_UP = "quantum_fax"  # a name no catalogue has


def attempt_rng(
    seed: int, role: str, messages: list[dict[str, Any]], attempt: int
) -> random.Random:
    """The random source of one attempt: a pure function of its inputs."""
    text = json.dumps([seed, role, messages, attempt], sort_keys=True, default=str)
    return random.Random(hashlib.sha256(text.encode()).digest())


def draw(seed: int, role: str, messages: list[dict[str, Any]], attempt: int, rate: float) -> str:
    """The fault for one attempt ("" for none)."""
    rng = attempt_rng(seed, role, messages, attempt)
    return rng.choice(FAULTS) if rng.random() < rate else ""


def invent(data: dict[str, Any], schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """`data` with one invented id added to the first list of ids the schema declares.

    Required fields `data` lacks (a rules fallback may be empty) get their smallest valid
    value first, so an unsaid catalogue id arrives in an otherwise valid reply.
    """
    spoiled = {**minimal(schema), **copy.deepcopy(data)}
    for name, prop in schema.get("properties", {}).items():
        items = prop.get("items", {}) if prop.get("type") == "array" else {}
        ids = items.get("enum") or items.get("properties", {}).get("id", {}).get("enum")
        if not ids or not isinstance(spoiled.get(name), list):
            continue
        unsaid = [i for i in ids if i not in json.dumps(spoiled[name])]
        # An unsaid catalogue id passes the schema and must be stopped by code's own checks;
        # a made-up one stops at the schema like the "schema" fault. The first is the rarer
        # proof, so it is drawn three times in four.
        chosen = rng.choice(unsaid) if unsaid and rng.random() < 0.75 else MADE_UP
        entry: Any = chosen if "enum" in items else _entry(items, chosen)
        limit = prop.get("maxItems")
        spoiled[name] = [*spoiled[name], entry][-limit:] if limit else [*spoiled[name], entry]
        return spoiled
    return {**spoiled, MADE_UP: True}  # no list of ids: an unknown field breaks the schema


def minimal(schema: dict[str, Any]) -> Any:
    """The smallest value `schema` accepts, for the simple schemas the roles use."""
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: minimal(props[k]) for k in schema.get("required", []) if k in props}
    defaults: dict[str, Any] = {"array": [], "string": "", "boolean": False, "null": None}
    if kind in ("number", "integer"):
        return schema.get("minimum", 0)
    return defaults.get(kind if isinstance(kind, str) else "null")


def _entry(items: dict[str, Any], chosen: str) -> dict[str, Any]:
    """An object for a list of {id, ...}: every other free string field says the name too,
    a field with fixed values takes its first, so the invented id reaches code's checks."""
    props = items.get("properties", {})
    return {k: _field(k, v, chosen) for k, v in props.items()}


def _field(name: str, spec: dict[str, Any], chosen: str) -> Any:
    if name == "id":
        return chosen
    if "enum" in spec:
        return spec["enum"][0]
    return chosen if spec.get("type") == "string" else 0


def spoil(fault: str, data: dict[str, Any], schema: dict[str, Any], rng: random.Random) -> str:
    """The reply text a misbehaving model would send instead of `data`."""
    if fault == "invalid_json":
        return json.dumps(data)[: rng.randint(1, 20)] + " ...and more"
    if fault == "schema":
        return json.dumps({"unexpected": rng.randint(0, 9)})
    return json.dumps(invent(data, schema, rng))


class ChaosModel(PortWrapper):
    """A ModelPort that spoils a seeded share of `inner`'s answers (see the module docstring)."""

    name = "chaos"

    def __init__(
        self, inner: ModelPort, *, rate: float = 0.3, seed: int = 0, delay_s: float = 1.0
    ) -> None:
        super().__init__(inner)
        self.name = "chaos"
        self.rate, self.seed, self.delay_s = rate, seed, delay_s
        self.model = f"chaos({getattr(inner, 'model', inner.name)})"
        self.max_attempts = 2

    async def answer(self, call: Call) -> ModelResult:
        """The inner answer unless the draws spoil both attempts; then the fallback."""
        started = time.perf_counter()
        role = call.role
        good = await call.to(self.inner)
        data, repaired = await self._attempts(
            role, call.messages, call.schema, good.data, call.validate
        )
        outcome = "fallback" if data is None else ("repaired" if repaired else good.outcome)
        if repaired:
            REPAIRS.labels(role, "success" if data is not None else "failure").inc()
        latency = time.perf_counter() - started
        record_call(role, outcome, latency, good.prompt_tokens, good.completion_tokens)
        result = data if data is not None else call.fallback()
        return ModelResult(result, outcome, good.prompt_tokens, good.completion_tokens, latency)

    async def _attempts(
        self,
        role: str,
        messages: list[dict[str, Any]],
        schema: dict[str, Any],
        good: dict[str, Any],
        validate: Callable[[dict[str, Any]], None] | None,
    ) -> tuple[dict[str, Any] | None, bool]:
        """(the accepted object or None, whether a repair turn was needed)."""
        repaired = False
        for attempt in range(self.max_attempts):
            fault = draw(self.seed, role, messages, attempt, self.rate)
            if not fault:
                return good, repaired
            if fault in ("timeout", "error"):
                await asyncio.sleep(self.delay_s if fault == "timeout" else 0.0)
                ATTEMPT_FAILURES.labels(
                    role, "timeout" if fault == "timeout" else "http_error"
                ).inc()
                RETRIES.labels(role).inc()
                continue
            rng = attempt_rng(self.seed, role, messages, attempt + self.max_attempts)
            try:
                return parse_reply(spoil(fault, good, schema, rng), schema, validate), repaired
            except InvalidOutput as exc:
                ATTEMPT_FAILURES.labels(role, exc.reason).inc()
                repaired = True
        return None, repaired
