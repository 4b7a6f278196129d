"""Every service SIGKILLed between claim and publish and between state change and publish.

A stack of its own, each service armed with crash points (`shared/faults.py`): each point
kills its process once, at the armed moment, and a supervisor here restarts it at once with
the same environment (the point does not fire again). One conversation is played through to
a saved workflow; the user must see it complete with one reply per turn, and every step
must have run once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import Counter

import pytest
from redis.asyncio import Redis

from planwire.client import SessionClient
from planwire.stack import EmbeddedStack
from shared.redis import session_key
from state import outline
from tests.e2e.gathering import gather

pytestmark = pytest.mark.e2e
# A turn here meets up to six kills, each paid with a restart (a few seconds of imports on a
# loaded machine), a consumer-group join and a lease running out.
RECOVERY_S = 300

TURNS = [
    "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out of each PDF.",
    "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
]
# service -> its armed points: "claimed:<consumed event>" and "publish:<produced event>"
# (the latter fires after the handler's state change: the phase moved, the run started or
# ended, the verdict or the artifact recorded).
ARMED = {
    "trimmer": ["claimed:TurnReceived", "publish:ContextTrimmed"],
    "indexer": ["claimed:TurnReceived"],  # it publishes nothing: its effect is the outline
    "annotator": ["claimed:ContextTrimmed", "publish:NotesUpdated"],
    "conversation": ["claimed:NotesUpdated", "publish:ReplyGenerated"],
    "classifier": ["claimed:ContextTrimmed", "publish:ReplyClassified"],
    "planner": ["claimed:RequirementsConfirmed", "publish:PlanCompiled"],
    "dispatcher": ["claimed:PlanCompiled", "publish:RunStep", "publish:WorkflowCompleted"],
    "specialist": ["claimed:RunStep", "publish:StepCompleted"],
}


@pytest.fixture(scope="module")
def crashing(tmp_path_factory):
    """The stack with every service armed; the crash markers' folder beside it."""
    from shared.model.factory import ModelSettings

    markers = tmp_path_factory.mktemp("crash-markers")
    env = {
        name: {
            "PLANWIRE_CRASH_AT": ",".join(points),
            "PLANWIRE_CRASH_ONCE": str(markers / name),
            # A killed worker's claim frees up fast; the step timeout stays far longer than
            # the test needs, so recovery comes from redelivery, not from re-requesting.
            "PLANWIRE_CLAIM_LEASE_S": "2",
            "PLANWIRE_STEP_TIMEOUT_S": "300",
        }
        for name, points in ARMED.items()
    }
    logs = tmp_path_factory.mktemp("crash-stack")
    with EmbeddedStack(ModelSettings(model="heuristic"), log_dir=logs, service_env=env) as stack:
        yield stack, markers


async def restart_the_killed(stack: EmbeddedStack, restarts: Counter[str]) -> None:
    """Restart a service as soon as it died (its crash point fired), with the same env."""
    while True:
        for child in stack.services:
            if child.name in ARMED and child.popen is not None and child.popen.poll() is not None:
                restarts[child.name] += 1
                child.start()
        await asyncio.sleep(0.2)


async def test_killed_between_claim_and_publish_and_after_state_changes_nothing_is_lost_or_done_twice(
    crashing,
):
    stack, markers = crashing
    restarts: Counter[str] = Counter()
    supervisor = asyncio.create_task(restart_the_killed(stack, restarts))
    try:
        async with SessionClient(stack.gateway_url, timeout_s=RECOVERY_S) as session:
            state, _ = await gather(session, TURNS)
            assert state["phase"] == "confirming"
            await session.say("Yes, that's everything. Please build it.")
            done = await session.wait_for(
                lambda e: e.type in {"workflow_completed", "workflow_failed"}, timeout_s=RECOVERY_S
            )
            final = await session.state()
    finally:
        supervisor.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await supervisor

    fired = sorted(await asyncio.to_thread(os.listdir, markers))
    expected = sorted(
        f"{name}.{point.replace(':', '.')}" for name, ps in ARMED.items() for point in ps
    )
    assert fired == expected, "every crash point fired once"
    assert restarts == Counter({name: len(points) for name, points in ARMED.items()})

    assert done.type == "workflow_completed", done.data
    assert final["phase"] == "completed"
    replies = [e.data for e in session.seen if e.type == "reply"]
    per_turn = Counter(r["turn_id"] for r in replies)
    assert per_turn and set(per_turn.values()) == {1}, f"replies per turn: {per_turn}"
    completions = [e for e in session.seen if e.type == "workflow_completed"]
    assert len(completions) == 1

    redis = Redis.from_url(stack.redis_url, decode_responses=True)
    try:
        executions = await redis.hgetall(session_key(session.session_id, "plan", "executions"))
        plan = next(e.data for e in session.seen if e.type == "plan")
        node_ids = [n["node_id"] for n in plan["nodes"]]
        versions = {
            n: await redis.llen(session_key(session.session_id, "artifact", n)) for n in node_ids
        }
        indexed = await outline.turns(redis, session.session_id)  # the owner's reader
    finally:
        await redis.aclose()
    assert set(executions) == set(node_ids) and set(executions.values()) == {"1"}, executions
    assert set(versions.values()) == {1}, f"artifact versions per step: {versions}"
    # The indexer, killed once after claiming a turn, still kept every turn exactly once.
    kept = [turn.turn_id for turn in indexed.values()]
    assert sorted(kept) == sorted(per_turn), (kept, per_turn)
