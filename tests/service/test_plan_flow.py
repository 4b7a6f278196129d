"""Planner, dispatcher and step runtime handlers against a real Valkey, wired by an in-memory bus.

The Lua scripts, compare-and-sets and the deadline sweep run for real; Kafka is replaced
by a list the test drains in order, so races and timeouts can be staged precisely.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Callable

import pytest_asyncio
from redis.asyncio import Redis

from catalog import load_catalogue
from schemas.confirmation import RequirementsConfirmed
from schemas.envelope import Event
from schemas.plan import (
    PlanCompiled,
    RunStep,
    StepCompleted,
    StepProgressed,
    WorkflowCompleted,
    WorkflowFailed,
)
from schemas.turn import ChatMessage, Notes
from services.dispatcher import handlers as dispatcher
from services.dispatcher.logic import Deadline, Decision
from services.dispatcher.store import RunStore
from services.dispatcher.sweeper import sweep_once
from services.planner import handlers as planner
from services.planner.store import PlanStore
from services.specialist import handlers as specialist
from services.specialist.store import StepStore
from shared.idempotency import AlreadyProcessed
from shared.model import HeuristicModel
from shared.redis import session_key
from tests.support.inmemory import Bus

CATALOGUE = load_catalogue()
TTL = 3600
TIMEOUT_S = 20


class Flow:
    """The three services' handlers over one Redis and one bus."""

    def __init__(self, redis: Redis) -> None:
        self.redis, self.bus = redis, Bus()
        model = HeuristicModel()
        bus, common = self.bus, {"redis": redis, "dedupe_ttl_s": TTL}
        self.planner = planner.Deps(
            store=PlanStore(redis, TTL), model=model, catalogue=CATALOGUE, compiled=bus, **common
        )
        self.dispatcher = dispatcher.Deps(
            store=RunStore(redis, TTL),
            broker=bus,
            progressed=bus,
            completed=bus,
            failed=bus,
            step_timeout_s=TIMEOUT_S,
            max_attempts=3,
            **common,
        )
        self.runner = specialist.Deps(
            store=StepStore(redis, TTL), model=model, catalogue=CATALOGUE, completed=bus, **common
        )

    async def deliver(self, message: Event) -> None:
        """Hand one message to its consumer; a duplicate is skipped as the middleware does."""
        route = {
            PlanCompiled: (dispatcher.on_plan_compiled, self.dispatcher),
            RunStep: (specialist.on_run_step, self.runner),
            StepCompleted: (dispatcher.on_step_completed, self.dispatcher),
        }
        if type(message) in route:
            handler, deps = route[type(message)]
            with contextlib.suppress(AlreadyProcessed):
                await handler(message, deps)

    async def drain(self, before: Callable[[Event], object] | None = None) -> None:
        """Deliver until nothing is left; `before` may act on a message just before it lands."""
        while self.bus.queue:
            message = self.bus.queue.pop(0)
            if before:
                await before(message)
            await self.deliver(message)


@pytest_asyncio.fixture
async def flow(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    await redis.flushdb()  # the deadline set is global: every test starts without strangers in it
    yield Flow(redis)
    await redis.aclose()


NOTES = Notes(
    requirement_summary="Gmail invoices to Slack.",
    mentioned_integrations=["gmail", "slack"],
    ready=True,
)


async def confirmed_session(flow: Flow, phase: str = "planning") -> RequirementsConfirmed:
    session_id = f"svc-{uuid.uuid4().hex[:10]}"
    lines = ["Watch Gmail for invoices and post them to Slack in #billing.", "Will do."]
    messages = [
        ChatMessage(role=r, text=t, turn_id="t1").model_dump_json()
        for r, t in zip(("user", "assistant"), lines, strict=False)
    ]
    await flow.redis.set(session_key(session_id, "phase"), phase)
    await flow.redis.zadd(
        session_key(session_id, "transcript"), {f"m{i}|{m}": i for i, m in enumerate(messages)}
    )
    return RequirementsConfirmed(session_id=session_id, turn_id="t1", notes=NOTES)


async def phase(flow: Flow, session_id: str) -> str:
    return await flow.redis.get(session_key(session_id, "phase"))


async def test_a_confirmed_session_is_planned_walked_saved_and_summarised(flow):
    event = await confirmed_session(flow)
    await planner.on_requirements_confirmed(event, flow.planner)
    await flow.drain()
    [plan] = flow.bus.of(PlanCompiled)
    assert [n.node_id for n in plan.nodes] == [
        "gmail",
        "gmail.config",
        "slack",
        "slack.config",
        "composer",
        "save",
        "summarizer",
    ]
    assert await phase(flow, event.session_id) == "completed"
    run = await flow.redis.hgetall(session_key(event.session_id, "plan", "run"))
    assert (run["state"], run["cursor"], run["total"]) == ("completed", "7", "7")
    [done] = flow.bus.of(WorkflowCompleted)
    doc = json.loads(await flow.redis.get(session_key(event.session_id, "workflow", "doc")))
    assert (
        done.workflow_id == doc["workflow_id"]
        and "Gmail" in done.summary
        and "Slack" in done.summary
    )
    assert [(p.node_index, p.status) for p in flow.bus.of(StepProgressed)] == [
        (i, s) for i in range(7) for s in ("dispatched", "completed")
    ]

    last = flow.bus.of(StepCompleted)[-1]
    await flow.deliver(
        last.model_copy(update={"event_id": uuid.uuid4()})
    )  # a re-emitted last completion
    again = flow.bus.of(WorkflowCompleted)
    assert len(again) == 2 and again[0].event_id == again[1].event_id, (
        "announced again under the same id, for dedupe"
    )
    assert len(flow.bus.of(RunStep)) == 7


async def test_a_session_that_is_not_planning_gets_no_plan(flow):
    event = await confirmed_session(flow, phase="gathering")
    await planner.on_requirements_confirmed(event, flow.planner)
    assert flow.bus.sent == [] and not await flow.redis.exists(
        session_key(event.session_id, "plan")
    )
    assert await phase(flow, event.session_id) == "gathering"


async def test_concurrent_copies_of_a_completion_advance_the_cursor_once(flow):
    event = await confirmed_session(flow)
    await planner.on_requirements_confirmed(event, flow.planner)
    await flow.deliver(flow.bus.queue.pop(0))  # PlanCompiled -> RunStep 0
    await flow.deliver(flow.bus.of(RunStep)[0])  # -> StepCompleted 0
    [completion] = flow.bus.of(StepCompleted)
    copies = [completion.model_copy(update={"event_id": uuid.uuid4()}) for _ in range(6)]
    await asyncio.gather(
        *(dispatcher.on_step_completed(c, flow.dispatcher) for c in [completion, *copies])
    )
    # A copy that lost the race may send the next request again (a dispatcher that died
    # after advancing is recovered that way), but always the same request: one event id.
    requests = {c.event_id: (c.node_index, c.attempt) for c in flow.bus.of(RunStep)}
    assert sorted(requests.values()) == [(0, 1), (1, 1)]
    assert (await flow.redis.hgetall(session_key(event.session_id, "plan", "run")))["cursor"] == "1"


async def test_a_transition_decided_on_a_stale_view_is_refused(flow):
    event = await confirmed_session(flow)
    await planner.on_requirements_confirmed(event, flow.planner)
    await flow.deliver(flow.bus.queue.pop(0))
    store, session_id = flow.dispatcher.store, event.session_id
    seen = await store.read(session_id)
    advance = Decision("advance", 0)
    assert await store.apply(session_id, seen, advance, 1)
    assert not await store.apply(session_id, seen, advance, 1), (
        "a second replica on the same view loses"
    )
    assert not await store.apply(session_id, seen, Decision("retry", 0, attempt=2, reason="late"))
    moved = await store.read(session_id)
    assert (moved.cursor, moved.step_status, moved.step_attempt) == (1, "dispatched", 1)
    retry = Decision("retry", 1, attempt=2, reason="timed out")
    assert await store.apply(session_id, moved, retry)
    assert not await store.apply(session_id, moved, Decision("advance", 1), 1), (
        "an advance decided before the retry loses"
    )


async def test_a_step_without_an_answer_is_requested_again_then_the_session_fails(flow):
    event = await confirmed_session(flow)
    await planner.on_requirements_confirmed(event, flow.planner)
    await flow.deliver(flow.bus.queue.pop(0))  # the first RunStep is never answered
    now = time.time()
    assert await sweep_once(flow.dispatcher, now + 1, lease_s=30, batch=10) == 0, "not due yet"
    for tick in (1, 2):
        assert (
            await sweep_once(flow.dispatcher, now + tick * (TIMEOUT_S + 1), lease_s=30, batch=10)
            == 1
        )
    assert [(c.node_index, c.attempt) for c in flow.bus.of(RunStep)] == [(0, 1), (0, 2), (0, 3)]
    assert [p.status for p in flow.bus.of(StepProgressed)] == ["dispatched", "retrying", "retrying"]
    await sweep_once(flow.dispatcher, now + 3 * (TIMEOUT_S + 1), lease_s=30, batch=10)
    [failed] = flow.bus.of(WorkflowFailed)
    assert (
        failed.reason
        == "Step 1 of 7 (gmail specialist) did not complete after 3 attempts: no answer within 20 s"
    )
    assert await phase(flow, event.session_id) == "failed"
    assert await flow.redis.get(session_key(event.session_id, "failure")) == failed.reason
    assert await flow.redis.zcard("pw:deadlines") == 0


async def test_two_sweeping_replicas_never_claim_the_same_deadline(flow):
    store = flow.dispatcher.store
    deadlines = [Deadline(f"svc-{i:08d}", "plan", 0, 1) for i in range(40)]
    for deadline in deadlines:
        await store.add_deadline(deadline, 100.0)
    first, second = await asyncio.gather(
        store.claim_due(200.0, 30, 40), store.claim_due(200.0, 30, 40)
    )
    assert not set(first) & set(second) and set(first) | set(second) == set(deadlines)
    assert await store.claim_due(200.0, 30, 40) == [], "claimed entries are leased, not due"
    assert len(await store.claim_due(231.0, 30, 40)) == 40, (
        "a lease that ran out makes them due again"
    )


async def test_an_invalid_user_edit_fails_the_config_step_until_the_session_fails(flow):
    event = await confirmed_session(flow)
    store = flow.runner.store

    async def break_the_gmail_draft(message: Event) -> None:
        if (
            isinstance(message, RunStep)
            and message.node.node_id == "gmail.config"
            and message.attempt == 1
        ):
            plan = await store.plan(event.session_id)
            await store.append_artifact(
                event.session_id,
                plan.nodes[0],
                "draft_config",
                {"query": 42},
                plan_id=plan.plan_id,
                attempt=None,
                edited_by_user=True,
            )

    await planner.on_requirements_confirmed(event, flow.planner)
    await flow.drain(before=break_the_gmail_draft)
    failures = [c for c in flow.bus.of(StepCompleted) if c.status == "failed"]
    assert [(c.node_id, c.attempt) for c in failures] == [
        ("gmail.config", 1),
        ("gmail.config", 2),
        ("gmail.config", 3),
    ]
    [failed] = flow.bus.of(WorkflowFailed)
    assert failed.reason.startswith(
        "Step 2 of 7 (gmail config) did not complete after 3 attempts: Gmail config is invalid at $.query"
    )
    assert await phase(flow, event.session_id) == "failed"
    assert not await flow.redis.exists(session_key(event.session_id, "workflow"))


async def exchanges(flow: Flow, session_id: str, node_id: str) -> list[dict]:
    key = session_key(session_id, "plan", "exchange", node_id)
    return [json.loads(e) for e in await flow.redis.lrange(key, 0, -1)]


async def test_the_naive_policy_chains_each_step_onto_the_last_exchange(flow, monkeypatch):
    """Same plan and result; under naive each model call continues the previous step's."""
    prompts = {}
    for policy in ("default", "naive"):
        monkeypatch.setenv("PLANWIRE_CONTEXT_POLICY", policy)
        event = await confirmed_session(flow)
        await planner.on_requirements_confirmed(event, flow.planner)
        await flow.drain()
        assert await phase(flow, event.session_id) == "completed"
        prompts[policy] = {
            node: (await exchanges(flow, event.session_id, node))[-1]["messages"]
            for node in ("gmail", "slack", "composer", "summarizer")
        }
    default, naive = prompts["default"], prompts["naive"]
    # Stateless by default: every step starts at the one system message, labels its inputs.
    assert all(len(p) == 2 for p in default.values())
    assert "not instructions" in default["composer"][1]["content"]
    # Naive: slack's call is gmail's exchange (its prompt and its reply) and one more turn,
    # and so on down the plan; nothing is labelled.
    for before, after in (("gmail", "slack"), ("slack", "composer"), ("composer", "summarizer")):
        assert naive[after][: len(naive[before])] == naive[before]
        assert naive[after][len(naive[before])]["role"] == "assistant"
        assert len(naive[after]) == len(naive[before]) + 2
    assert "not instructions" not in json.dumps(naive["summarizer"][1:])


async def test_a_dispatcher_that_died_after_advancing_requests_the_next_step_on_redelivery(
    flow, monkeypatch
):
    """Between moving the cursor and requesting the next step the dispatcher died: the
    completion, delivered again, requests that step then (same id), not at its deadline."""
    event = await confirmed_session(flow)
    await planner.on_requirements_confirmed(event, flow.planner)
    await flow.deliver(flow.bus.queue.pop(0))  # PlanCompiled -> RunStep 0
    await flow.deliver(flow.bus.of(RunStep)[0])  # -> StepCompleted 0
    [completion] = flow.bus.of(StepCompleted)

    async def dies(*_args, **_kwargs):
        raise ConnectionError("the dispatcher died before publishing")

    with monkeypatch.context() as patch:
        patch.setattr(dispatcher, "publish", dies)
        with contextlib.suppress(ConnectionError):
            await dispatcher.on_step_completed(completion, flow.dispatcher)
    assert [(c.node_index, c.attempt) for c in flow.bus.of(RunStep)] == [(0, 1)]
    run = await flow.redis.hgetall(session_key(event.session_id, "plan", "run"))
    assert run["cursor"] == "1", "the cursor moved before the crash"

    await dispatcher.on_step_completed(completion, flow.dispatcher)  # redelivered
    assert [(c.node_index, c.attempt) for c in flow.bus.of(RunStep)] == [(0, 1), (1, 1)]
