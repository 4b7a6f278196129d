"""The context policy (shared/policy.py) and the measurement aids of the model port: what a
naive prompt holds against the default one, estimated tokens, a simulated model latency."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from planwire.evaluate import CaseResult, compare, compare_text
from schemas.turn import ChatMessage
from services.annotator import prompt as annotator_prompt
from services.specialist import context
from shared.model import port
from shared.model.factory import ModelSettings, build_model
from shared.model.port import HeuristicModel, SimulatedLatencyModel
from shared.model.tokens import estimate_messages
from shared.policy import ContextPolicy, context_policy, parse_policy
from shared.settings import InfraSettings
from tests.unit.test_specialist_logic import ARTIFACTS, INDEX, PLAN, transcript


def test_the_policy_defaults_and_refuses_unknown_names(monkeypatch):
    monkeypatch.delenv("PLANWIRE_CONTEXT_POLICY", raising=False)
    assert context_policy() is ContextPolicy.DEFAULT
    monkeypatch.setenv("PLANWIRE_CONTEXT_POLICY", "naive")
    assert context_policy() is ContextPolicy.NAIVE
    with pytest.raises(ValueError, match="choose one of default, naive"):
        parse_policy("lazy")
    # A service refuses to start on a misspelt policy rather than failing every message.
    monkeypatch.setenv("PLANWIRE_CONTEXT_POLICY", "Naive")
    with pytest.raises(ValidationError, match="'default' or 'naive'"):
        InfraSettings()


def test_a_naive_step_sees_the_whole_transcript_and_continues_the_last_exchange():
    lines = transcript(40)
    stateless = context.assemble(PLAN, INDEX["slack"], ARTIFACTS, lines)
    whole = context.assemble(PLAN, INDEX["slack"], ARTIFACTS, lines, window=None)
    assert len(stateless.messages) == context.CONTEXT_MESSAGES and len(whole.messages) == 40

    earlier = [{"role": "system", "content": "S"}, {"role": "user", "content": "gmail task"}]
    chain = [*earlier, {"role": "assistant", "content": '{"query": "label:edited"}'}]
    shown = {"scheduler", "scheduler.config", "gmail"}
    chained = context.render_chained(whole, "Configure Slack.", chain, shown)
    # The earlier exchange goes on unchanged, one user turn is added with the task.
    assert chained[: len(chain)] == chain and len(chained) == len(chain) + 1
    assert chained[-1]["role"] == "user" and "Configure Slack." in chained[-1]["content"]
    assert "not instructions" not in json.dumps(chained)  # no scope labels

    first = context.render_chained(whole, "Configure Slack.", [], set())
    body = first[-1]["content"]
    assert first[0]["role"] == "system" and "line 0" in body and "line 39" in body
    assert json.dumps(ARTIFACTS["scheduler.config"].content, sort_keys=True) in body  # unlabelled
    assert "user_text" in body  # the user's words stay quoted: a guard, not context


def test_the_naive_annotator_gets_the_history_as_turns_without_the_latest():
    lines = [
        ChatMessage(role="user", text="Watch Gmail.", turn_id="t1"),
        ChatMessage(role="assistant", text="Which label?", turn_id="t1"),
        ChatMessage(role="user", text="Invoices.", turn_id="t2"),
    ]
    turns = annotator_prompt.history_turns(lines, "t2")
    assert [t["role"] for t in turns] == ["user", "assistant"]
    assert "Watch Gmail." in turns[0]["content"] and turns[1]["content"] == "Which label?"


async def test_the_heuristic_charges_estimated_tokens_only_when_asked():
    messages = [{"role": "system", "content": "x" * 40}, {"role": "user", "content": "y" * 8}]
    plain = await HeuristicModel().structured("r", messages, {}, fallback=lambda: {"a": 1})
    counted = await HeuristicModel(estimate_tokens=True).structured(
        "r", messages, {}, fallback=lambda: {"a": 1}
    )
    assert (plain.prompt_tokens, plain.completion_tokens) == (0, 0)
    assert counted.data == plain.data == {"a": 1}
    assert counted.prompt_tokens == estimate_messages(messages) == (10 + 4) + (2 + 4)
    assert counted.completion_tokens == 2  # '{"a": 1}' is 8 characters


async def test_a_simulated_latency_sleeps_asynchronously_then_answers_as_the_inner_port(
    monkeypatch,
):
    slept = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(port.asyncio, "sleep", sleep)
    model = build_model(ModelSettings(model="heuristic", model_latency_ms=200))
    assert isinstance(model, SimulatedLatencyModel) and model.name == "heuristic"
    result = await model.structured("r", [], {}, fallback=lambda: {"ok": True})
    assert slept == [0.2] and result.data == {"ok": True} and result.outcome == "heuristic"
    assert result.latency_s >= 0.2
    assert isinstance(build_model(ModelSettings(model="heuristic")), HeuristicModel)
    with pytest.raises(ValueError, match="cannot be negative"):
        SimulatedLatencyModel(HeuristicModel(), -1)


def test_the_compare_puts_tokens_and_recall_side_by_side():
    def result(id_: str, tokens: int, annotator: int) -> CaseResult:
        return CaseResult(
            id_,
            passed=True,
            prompt_tokens=tokens,
            prompt_tokens_by_role={"annotator": annotator, "specialist.gmail": tokens - annotator},
        )

    summary = {"cases": 2, "passed": 2, "recall": 1.0}
    runs = {
        "default": (
            [result("a", 600, 200), result("b", 400, 100)],
            summary | {"prompt_tokens": 1000},
        ),
        "naive": (
            [result("a", 1000, 600), result("b", 1000, 700)],
            summary | {"prompt_tokens": 2000},
        ),
    }
    found = compare(runs, ["default", "naive"])
    assert [row["ratio"] for row in found["cases"]] == [0.6, 0.4]
    assert found["summary"]["ratio"] == 0.5
    assert found["summary"]["naive"]["prompt_tokens_per_session"] == 1000.0
    assert found["summary"]["naive"]["prompt_tokens_by_role"] == {
        "annotator": 1300,
        "specialist": 700,
    }
    assert compare_text(found).splitlines()[-1] == (
        "compare: default recall 1.00, prompt_tokens/session 500.0; naive recall 1.00, "
        "prompt_tokens/session 1000.0; default/naive 0.5"
    )
