"""The chaos backend spoils a seeded share of answers; the port's guarantees still hold."""

from __future__ import annotations

import random

from shared.model import HeuristicModel, ModelSettings, build_model
from shared.model.chaos import FAULTS, MADE_UP, ChaosModel, draw, invent
from shared.model.cooldown import CoolDownModel
from shared.model.jsonschema_lite import validate

IDS = {"type": "string", "enum": ["gmail", "slack", "salesforce", "notion"]}
SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "mentioned": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "type": "object",
                "properties": {"id": IDS, "evidence": {"type": "string"}},
                "required": ["id", "evidence"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["summary", "mentioned"],
    "additionalProperties": False,
}
GOOD = {"summary": "mail to chat", "mentioned": [{"id": "gmail", "evidence": "gmail"}]}


def messages(n: int) -> list[dict]:
    return [{"role": "user", "content": f"turn {n}"}]


def test_the_draw_is_seeded_and_hits_about_the_rate_with_every_fault():
    draws = [draw(7, "annotator", messages(n), 0, 0.3) for n in range(2000)]
    assert draws == [draw(7, "annotator", messages(n), 0, 0.3) for n in range(2000)]
    assert draws != [draw(8, "annotator", messages(n), 0, 0.3) for n in range(2000)]
    assert 0.25 < sum(map(bool, draws)) / len(draws) < 0.35
    assert set(draws) == {"", *FAULTS}


def test_invented_names_are_either_unsaid_catalogue_ids_or_outside_the_catalogue():
    seen = set()
    for n in range(40):
        spoiled = invent(GOOD, SCHEMA, random.Random(n))
        added = spoiled["mentioned"][-1]["id"]
        assert added != "gmail" and spoiled["mentioned"][0] == GOOD["mentioned"][0]
        seen.add("made-up" if added == MADE_UP else "unsaid")
        if added != MADE_UP:
            validate(spoiled, SCHEMA)  # a schema cannot catch it: code must
    assert seen == {"made-up", "unsaid"}


async def test_every_answer_is_schema_valid_and_faults_fall_back_or_pass_invented_ids():
    model = ChaosModel(HeuristicModel(), rate=0.5, seed=3, delay_s=0.0)
    outcomes = {}
    for n in range(200):
        result = await model.structured(
            "t_chaos", messages(n), SCHEMA, fallback=lambda: {"summary": "rules", "mentioned": []}
        )
        validate(result.data, SCHEMA)
        outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
        if result.outcome == "fallback":
            assert result.data == {"summary": "rules", "mentioned": []}
    # Heuristic answers pass through; spoiled ones are repaired or fall back to the rules.
    assert {"heuristic", "repaired", "fallback"} <= set(outcomes)


async def test_rate_zero_is_the_inner_backend_and_rate_one_always_falls_back():
    calm, broken = (ChaosModel(HeuristicModel(), rate=r, delay_s=0.0) for r in (0.0, 1.0))
    fallback = lambda: dict(GOOD)  # noqa: E731
    assert (await calm.structured("t", messages(1), SCHEMA, fallback=fallback)).outcome == (
        "heuristic"
    )
    results = [
        await broken.structured("t", messages(n), SCHEMA, fallback=fallback) for n in range(30)
    ]
    # Every attempt is spoiled: only an unsaid catalogue id gets through, and code drops it.
    assert {r.outcome for r in results} <= {"fallback", "repaired", "heuristic"}
    assert any(r.outcome == "fallback" for r in results)


class Failing:
    """A port whose every call falls back, counting the calls that reached it."""

    name = model = "failing"

    def __init__(self) -> None:
        self.calls = 0

    async def structured(self, role, messages, schema, *, fallback, **_):
        from shared.model.port import ModelResult

        self.calls += 1
        return ModelResult(fallback(), "fallback", 0, 0, 0.0)

    async def aclose(self) -> None:
        pass


async def test_two_failures_in_a_row_cool_the_role_down_then_it_tries_again():
    now = [0.0]
    inner = Failing()
    model = CoolDownModel(inner, cooldown_s=30.0, clock=lambda: now[0])
    ask = lambda role: model.structured(role, messages(1), SCHEMA, fallback=lambda: dict(GOOD))  # noqa: E731
    assert [(await ask("a")).outcome for _ in range(2)] == ["fallback", "fallback"]
    cooled = [(await ask("a")).outcome for _ in range(5)]
    assert cooled == ["heuristic"] * 5 and inner.calls == 2  # no model call while cooling
    assert (await ask("b")).outcome == "fallback" and inner.calls == 3  # per role
    now[0] = 31.0
    assert (await ask("a")).outcome == "fallback" and inner.calls == 4  # the model again


def test_build_model_wraps_chaos_around_the_inner_backend(monkeypatch):
    monkeypatch.setenv("PLANWIRE_MODEL", "chaos")
    monkeypatch.setenv("PLANWIRE_CHAOS_RATE", "0.5")
    monkeypatch.setenv("PLANWIRE_CHAOS_SEED", "9")
    port = build_model(ModelSettings())
    assert isinstance(port, CoolDownModel) and isinstance(port.inner, ChaosModel)
    assert (port.inner.rate, port.inner.seed, port.inner.inner.name) == (0.5, 9, "heuristic")


def test_an_empty_rules_answer_still_gets_a_valid_reply_with_an_unsaid_id():
    """The annotator's fallback is `{}`: the invented reply must still pass the schema."""
    ids = set()
    for n in range(20):
        spoiled = invent({}, SCHEMA, random.Random(n))
        if spoiled["mentioned"][-1]["id"] != MADE_UP:
            validate(spoiled, SCHEMA)
            ids.add(spoiled["mentioned"][-1]["id"])
    assert ids and ids <= {"gmail", "slack", "salesforce", "notion"}
