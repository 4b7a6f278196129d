"""The dispatcher's decisions: a completion advances only the step under the cursor."""

from __future__ import annotations

import pytest

from schemas.plan import PlanNode, StepCompleted
from services.dispatcher import logic
from services.dispatcher.logic import Deadline
from state.run import RunView, run_view

PLAN = "plan-1"
NODES = [
    PlanNode(kind="specialist", node_id="gmail", runner="gmail", specialist="gmail"),
    PlanNode(kind="config", node_id="gmail.config", runner="gmail", specialist="gmail"),
    PlanNode(kind="composer", node_id="composer", runner="composer"),
]


def run(cursor=1, attempt=1, status="dispatched", state="running", total=3, plan=PLAN) -> RunView:
    return RunView(plan, cursor, total, state, status, attempt)


def done(index=1, attempt=1, status="ok", plan=PLAN, error=None) -> StepCompleted:
    node = NODES[index]
    return StepCompleted(
        session_id="session-1",
        plan_id=plan,
        node_index=index,
        node_id=node.node_id,
        attempt=attempt,
        status=status,
        artifact_version=1 if status == "ok" else None,
        error=error,
    )


def test_the_current_step_completing_advances_the_cursor():
    assert logic.on_completion(run(), done(), 3) == logic.Decision("advance", 1)


@pytest.mark.parametrize(
    ("view", "event", "why"),
    [
        (run(cursor=2, attempt=2), done(index=1), "a duplicate of a step long passed"),
        (run(cursor=2, status="done"), done(index=1), "the next step already answered"),
        (run(cursor=2), done(index=1, status="failed", error="x"), "a failure of a passed step"),
        (run(cursor=1), done(index=2), "a completion from the future"),
        (run(status="done"), done(), "the step is not waiting"),
        (run(attempt=1), done(attempt=2), "an attempt never requested"),
        (run(plan="plan-2"), done(), "an older plan of the session"),
        (None, done(), "no run at all"),
        (
            run(attempt=2),
            done(attempt=1, status="failed", error="boom"),
            "a superseded attempt's failure",
        ),
    ],
)
def test_completions_that_are_not_about_the_current_step_are_ignored(view, event, why):
    assert logic.on_completion(view, event, 3).action == "ignore", why


def test_the_completion_that_advanced_the_run_delivered_again_asks_for_the_next_step_again():
    # The dispatcher may have died between moving the cursor and requesting the next step:
    # the redelivered completion re-sends that request instead of waiting for its deadline.
    assert logic.on_completion(run(cursor=2), done(index=1), 3) == logic.Decision("resend", 2)


def test_a_late_earlier_attempt_that_succeeded_still_advances():
    assert logic.on_completion(run(attempt=3), done(attempt=2), 3).action == "advance"


def test_a_failed_step_is_requested_again_until_attempts_run_out():
    again = logic.on_completion(run(attempt=1), done(status="failed", error="bad channel"), 3)
    assert (again.action, again.attempt, again.reason) == ("retry", 2, "bad channel")
    out = logic.on_completion(
        run(attempt=3), done(attempt=3, status="failed", error="bad channel"), 3
    )
    assert (out.action, out.reason) == ("fail", "bad channel")


def test_a_missed_deadline_re_requests_then_fails():
    deadline = Deadline("session-1", PLAN, 1, 1)
    assert logic.on_deadline(run(), deadline, 3, 20).attempt == 2
    last = logic.on_deadline(run(attempt=3), Deadline("session-1", PLAN, 1, 3), 3, 20)
    assert last.action == "fail" and "20 s" in last.reason


@pytest.mark.parametrize(
    "view",
    [
        run(cursor=2),
        run(attempt=2),
        run(status="done"),
        run(state="completed", cursor=3),
        run(plan="other"),
    ],
)
def test_a_stale_deadline_does_nothing(view):
    assert logic.on_deadline(view, Deadline("session-1", PLAN, 1, 1), 3, 20).action == "ignore"


def test_a_finished_run_announces_again_only_for_its_last_step():
    finished = run(cursor=3, state="completed", status="pending", attempt=0)
    assert logic.on_completion(finished, done(index=2), 3).action == "announce"
    assert logic.on_completion(finished, done(index=1), 3).action == "ignore"
    failed = run(cursor=1, state="failed", status="failed", attempt=3)
    assert logic.on_deadline(failed, Deadline("session-1", PLAN, 1, 3), 3, 20).action == "announce"


def test_a_failure_is_worded_for_the_user_and_needs_a_matching_plan():
    decision = logic.Decision("fail", 1, reason="no answer within 20 s")
    worded = logic.explain(decision, run(attempt=3), NODES)
    assert (
        worded.reason
        == "Step 2 of 3 (gmail config) did not complete after 3 attempts: no answer within 20 s"
    )
    assert logic.explain(decision, run(total=5), NODES).action == "ignore"


def test_the_run_view_reads_the_step_under_the_cursor():
    view = run_view(
        {"plan_id": PLAN, "cursor": "1", "total": "3", "state": "running"},
        {"0:status": "done", "1:status": "dispatched", "1:attempt": "2"},
    )
    assert view == run(attempt=2)
    assert run_view({}, {}) is None


def test_deadline_members_round_trip_and_event_ids_are_deterministic():
    deadline = Deadline("session-1", PLAN, 4, 2)
    assert Deadline.parse(deadline.member()) == deadline
    assert logic.plan_event_id(PLAN, "RunStep", 4, 2) == logic.plan_event_id(PLAN, "RunStep", 4, 2)
    assert logic.plan_event_id(PLAN, "RunStep", 4, 2) != logic.plan_event_id(PLAN, "RunStep", 4, 3)
