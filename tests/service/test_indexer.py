"""The indexer over FastStream's in-memory broker, a real Valkey and real model ports."""

from __future__ import annotations

import uuid

import pytest_asyncio
from prometheus_client import REGISTRY
from redis.asyncio import Redis

from catalog import load_catalogue
from schemas.turn import TurnReceived
from services.indexer import handlers, logic
from services.indexer.main import service
from services.indexer.store import OutlineStore
from shared.model import HeuristicModel, OpenAIModel
from tests.support.fake_openai import FakeOpenAI
from tests.support.inmemory import TTL, deliver, serving
from tests.support.long_conversation import long_session

LIMITS = logic.Limits(topic_turns=20, phase_turns=80)


def counted(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


def deps_for(redis: Redis, model) -> handlers.Deps:
    return handlers.Deps(
        redis=redis,
        store=OutlineStore(redis, TTL),
        model=model,
        catalogue=load_catalogue(),
        limits=LIMITS,
        dedupe_ttl_s=TTL,
    )


def turn(session_id: str, seq: int, text: str) -> TurnReceived:
    return TurnReceived(session_id=session_id, turn_id=f"t{seq}", text=text, turn_seq=seq)


async def indexed(redis: Redis, model, texts: list[str]) -> tuple[str, OutlineStore]:
    """Deliver the texts as turns of a new session through the indexer's real subscriber."""
    deps = deps_for(redis, model)
    session_id = f"idx-{uuid.uuid4().hex[:10]}"
    async with serving(service, deps) as broker:
        for seq, text in enumerate(texts, 1):
            await deliver(broker, turn(session_id, seq, text))
    return session_id, deps.store


async def test_turns_become_actions_of_4_and_a_redelivery_changes_nothing(redis):
    session_id, store = await indexed(redis, HeuristicModel(), long_session(10, seed=5))
    outline = await store.get(session_id)
    assert [(a.first_turn, a.last_turn) for _, _, a in outline.actions()] == [(1, 4), (5, 8)]
    assert outline.actions()[0][2].turn_ids == ["t1", "t2", "t3", "t4"]  # turns 9-10 wait
    async with serving(service, deps_for(redis, HeuristicModel())) as broker:
        eleventh = turn(session_id, 11, "Hello again.")
        await deliver(broker, eleventh)
        await deliver(broker, eleventh)  # redelivered: claimed once
        await deliver(broker, turn(session_id, 8, "changed"))  # another event, same turn
    assert await store.get(session_id) == outline  # turn 12 is still missing
    turns = await store.turns(session_id)
    assert sorted(turns) == list(range(1, 12)) and turns[8].text != "changed"
    async with serving(service, deps_for(redis, HeuristicModel())) as broker:
        await deliver(broker, turn(session_id, 12, "And the last one."))
        await deliver(broker, turn(session_id, 12, "And the last one."))
    after = await store.get(session_id)
    assert [a.batch for _, _, a in after.actions()] == [0, 1, 2] and after.version == 3


async def test_a_model_that_always_extends_is_overridden_and_counted(redis):
    before = counted("planwire_overrides_total", service="indexer", rule="topic_full")
    answer = {"decision": "extend_topic", "title": "", "summary": "the team offsite"}
    fake = FakeOpenAI(lambda _request: answer).start()
    model = OpenAIModel(fake.base_url, "fake", "key", timeout_s=5)
    try:
        session_id, store = await indexed(redis, model, long_session(120, seed=9))
    finally:
        await model.aclose()
        fake.stop()
    outline = await store.get(session_id)
    assert logic.problems(outline, LIMITS) == []
    assert len(outline.phases) == 2 and len(fake.requests) == 30
    topics = sum(len(p.topics) for p in outline.phases)
    assert counted("planwire_overrides_total", service="indexer", rule="topic_full") - before == (
        topics - len(outline.phases)
    )


async def test_a_model_that_fails_every_call_leaves_a_valid_tree_and_counted_fallbacks(redis):
    before = counted("planwire_model_fallbacks_total", role="indexer")
    fake = FakeOpenAI().start()
    fake.script(["http500"] * 200)
    model = OpenAIModel(fake.base_url, "fake", "key", timeout_s=5, backoff_s=0.01)
    try:
        session_id, store = await indexed(redis, model, long_session(40, seed=2))
    finally:
        await model.aclose()
        fake.stop()
    outline = await store.get(session_id)
    assert logic.problems(outline, LIMITS) == []
    assert {a.decided_by for _, _, a in outline.actions()} == {"heuristic"}
    assert len(fake.requests) == 20  # two attempts per batch, then the heuristic
    assert counted("planwire_model_fallbacks_total", role="indexer") - before == 10
