"""The model port's guarantees against a fake OpenAI server over real loopback HTTP."""

from __future__ import annotations

import json

import pytest
from prometheus_client import REGISTRY

from shared.model import HeuristicModel, ModelSettings, OpenAIModel, build_model
from shared.model.jsonschema_lite import SchemaViolation, validate
from tests.support.fixtures import fake_openai  # noqa: F401 (fixture)

SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "maxLength": 20},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2},
    },
    "required": ["answer", "tags"],
    "additionalProperties": False,
}
GOOD = {"answer": "Paris", "tags": ["a"]}
FALLBACK = {"answer": "rules", "tags": []}
MESSAGES = [
    {"role": "system", "content": "Answer in JSON."},
    {"role": "user", "content": "Capital of France?"},
]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
async def model(fake_openai):
    port = OpenAIModel(
        fake_openai.base_url, "fake-model", "not-needed", timeout_s=0.5, backoff_s=0.01
    )
    yield port
    await port.aclose()


async def call(model, role: str, **kwargs):
    return await model.structured(role, MESSAGES, SCHEMA, fallback=lambda: dict(FALLBACK), **kwargs)


async def test_ok_returns_the_model_object_and_sends_a_strict_schema(model, fake_openai):
    fake_openai.script([f"ok:{json.dumps(GOOD)}"])
    result = await call(model, "t_ok", max_tokens=64)
    assert (result.data, result.outcome) == (GOOD, "ok")
    sent = fake_openai.requests[0]
    assert sent["response_format"]["json_schema"] == {
        "name": "t_ok",
        "schema": SCHEMA,
        "strict": True,
    }
    assert (sent["temperature"], sent["max_tokens"], sent["model"]) == (0, 64, "fake-model")


async def test_a_server_error_is_retried_once(model, fake_openai):
    fake_openai.script(["http500", f"ok:{json.dumps(GOOD)}"])
    result = await call(model, "t_retry")
    assert result.outcome == "ok" and len(fake_openai.requests) == 2
    assert sample("planwire_model_retries_total", role="t_retry") == 1
    assert sample("planwire_model_attempt_failures_total", role="t_retry", reason="http_error") == 1


async def test_two_timeouts_fall_back(model, fake_openai):
    fake_openai.script(["timeout", "timeout"])
    result = await call(model, "t_timeout")
    assert (result.data, result.outcome) == (FALLBACK, "fallback")
    assert sample("planwire_model_attempt_failures_total", role="t_timeout", reason="timeout") == 2
    assert sample("planwire_model_fallbacks_total", role="t_timeout") == 1


async def test_a_client_error_is_not_retried(model, fake_openai):
    fake_openai.script(["http400"])
    result = await call(model, "t_400")
    assert result.outcome == "fallback" and len(fake_openai.requests) == 1


async def test_invalid_json_is_repaired_with_the_error_in_the_conversation(model, fake_openai):
    fake_openai.script(["invalid_json", f"ok:{json.dumps(GOOD)}"])
    result = await call(model, "t_repair")
    assert (result.data, result.outcome) == (GOOD, "repaired")
    repair = fake_openai.requests[1]["messages"]
    assert repair[:2] == MESSAGES
    assert repair[2]["role"] == "assistant" and repair[2]["content"].startswith("Sure!")
    assert repair[3]["role"] == "user" and "not valid JSON" in repair[3]["content"]
    assert sample("planwire_model_repairs_total", role="t_repair", result="success") == 1


async def test_schema_violation_twice_falls_back_after_one_repair(model, fake_openai):
    bad = json.dumps({"answer": "x" * 30, "tags": []})
    fake_openai.script(
        [f"schema_violation:{bad}", f"schema_violation:{bad}", f"ok:{json.dumps(GOOD)}"]
    )
    result = await call(model, "t_schema")
    assert (result.data, result.outcome) == (FALLBACK, "fallback")
    assert len(fake_openai.requests) == 2
    assert "maxLength" in fake_openai.requests[1]["messages"][-1]["content"]
    assert sample("planwire_model_attempt_failures_total", role="t_schema", reason="schema") == 2
    assert sample("planwire_model_repairs_total", role="t_schema", result="failure") == 1


async def test_a_rejecting_validate_callback_triggers_a_repair(model, fake_openai):
    def no_tags(data: dict) -> None:
        if data["tags"]:
            raise ValueError("tags must be empty for this question")

    fake_openai.script([f"ok:{json.dumps(GOOD)}", 'ok:{"answer": "Paris", "tags": []}'])
    result = await call(model, "t_validate", validate=no_tags)
    assert (result.data, result.outcome) == ({"answer": "Paris", "tags": []}, "repaired")
    assert "tags must be empty" in fake_openai.requests[1]["messages"][-1]["content"]
    assert (
        sample("planwire_model_attempt_failures_total", role="t_validate", reason="validation") == 1
    )


async def test_tokens_are_summed_over_attempts_and_counted(model, fake_openai):
    fake_openai.script(["invalid_json", f"ok:{json.dumps(GOOD)}"])
    result = await call(model, "t_tokens")
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    first_prompt = sum(max(1, len(m["content"]) // 4) + 4 for m in MESSAGES)
    assert result.prompt_tokens > 2 * first_prompt  # the repair prompt is longer than the first
    assert (
        sample("planwire_model_tokens_total", role="t_tokens", kind="prompt")
        == result.prompt_tokens
    )
    assert (
        sample("planwire_model_tokens_total", role="t_tokens", kind="completion")
        == result.completion_tokens
    )


async def test_every_call_is_counted_by_outcome_with_latency(model, fake_openai):
    fake_openai.script(
        [f"ok:{json.dumps(GOOD)}", "invalid_json", f"ok:{json.dumps(GOOD)}", "http503", "http503"]
    )
    outcomes = [(await call(model, "t_count")).outcome for _ in range(3)]
    assert outcomes == ["ok", "repaired", "fallback"]
    for outcome in outcomes:
        assert sample("planwire_model_calls_total", role="t_count", outcome=outcome) == 1
    assert sample("planwire_model_latency_seconds_count", role="t_count") == 3


async def test_the_heuristic_backend_only_routes_to_the_fallback():
    result = await HeuristicModel().structured(
        "t_heur", MESSAGES, SCHEMA, fallback=lambda: dict(FALLBACK)
    )
    assert (result.data, result.outcome, result.prompt_tokens) == (FALLBACK, "heuristic", 0)
    assert sample("planwire_model_calls_total", role="t_heur", outcome="heuristic") == 1


async def test_build_model_reads_planwire_environment(monkeypatch, fake_openai):
    monkeypatch.delenv("PLANWIRE_MODEL", raising=False)
    assert build_model(ModelSettings()).name == "heuristic"
    monkeypatch.setenv("PLANWIRE_MODEL", "openai")
    monkeypatch.setenv("PLANWIRE_MODEL_BASE_URL", fake_openai.base_url)
    port = build_model(ModelSettings())
    try:
        assert (port.name, port.model) == ("openai", "smollm2-135m")
        assert (
            await call(port, "t_factory")
        ).outcome == "ok"  # the default responder fits the schema
    finally:
        await port.aclose()


@pytest.mark.parametrize(
    "value, error",
    [
        ({"answer": "a", "tags": [], "extra": 1}, "unexpected property 'extra'"),
        ({"answer": "a"}, "missing required property 'tags'"),
        ({"answer": 3, "tags": []}, "$.answer: expected string, got integer"),
        ({"answer": "a", "tags": ["c"]}, "$.tags[0]: 'c' is not one of"),
        ({"answer": "a", "tags": ["a", "b", "a"]}, "$.tags: 3 items is above the maxItems of 2"),
    ],
)
def test_the_lite_validator_names_the_first_error(value, error):
    with pytest.raises(SchemaViolation) as caught:
        validate(value, SCHEMA)
    assert error in str(caught.value)


def test_the_lite_validator_follows_local_refs_and_any_of():
    schema = {
        "$defs": {
            "Item": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        },
        "type": "object",
        "properties": {"item": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]}},
    }
    validate({"item": None}, schema)
    validate({"item": {"n": 1}}, schema)
    with pytest.raises(SchemaViolation):
        validate({"item": {"n": True}}, schema)
