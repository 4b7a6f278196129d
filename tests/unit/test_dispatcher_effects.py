"""What an applied dispatcher decision emits: events in order, deadlines, the run's end."""

from __future__ import annotations

from schemas.plan import RunStep, StepProgressed
from services.dispatcher import effects
from services.dispatcher.logic import Deadline, Decision
from tests.unit.test_dispatcher_logic import NODES, PLAN, run

SID = "session-1"


def kinds(todo: effects.Effects) -> list[tuple[str, int, str]]:
    """Each event as (type, node index, status or runner), to compare orders at a glance."""
    return [
        ("RunStep", e.node_index, e.node.runner)
        if isinstance(e, RunStep)
        else ("StepProgressed", e.node_index, e.status)
        for e in todo.events
    ]


def test_advancing_reports_the_step_done_then_requests_the_next_one():
    todo = effects.of(SID, Decision("advance", 0), run(cursor=0), NODES)
    assert kinds(todo) == [
        ("StepProgressed", 0, "completed"),
        ("RunStep", 1, "gmail"),
        ("StepProgressed", 1, "dispatched"),
    ]
    assert todo.clear == (Deadline(SID, PLAN, 0, 1),)
    assert todo.ending is None


def test_a_resend_repeats_the_advance_s_request_with_the_same_ids_and_touches_no_deadline():
    advanced = effects.of(SID, Decision("advance", 0), run(cursor=0), NODES)
    resent = effects.of(SID, Decision("resend", 1), run(cursor=1), NODES)
    assert kinds(resent) == [("RunStep", 1, "gmail"), ("StepProgressed", 1, "dispatched")]
    assert [e.event_id for e in resent.events] == [e.event_id for e in advanced.events[1:]]
    assert resent.clear == () and resent.ending is None


def test_advancing_past_the_last_step_completes_the_run():
    todo = effects.of(SID, Decision("advance", 2), run(cursor=2), NODES)
    assert kinds(todo) == [("StepProgressed", 2, "completed")]
    assert (todo.ending, todo.repeat) == ("completed", False)
    assert effects.next_deadline(SID, run(cursor=2), Decision("advance", 2)) is None


def test_a_retry_requests_the_same_step_with_the_next_attempt_and_its_own_deadline():
    decision = Decision("retry", 1, attempt=2, reason="timed out")
    todo = effects.of(SID, decision, run(cursor=1, attempt=1), NODES)
    assert kinds(todo) == [("RunStep", 1, "gmail"), ("StepProgressed", 1, "retrying")]
    command = todo.events[0]
    assert isinstance(command, RunStep) and command.attempt == 2
    assert todo.clear == (Deadline(SID, PLAN, 1, 1),)
    assert effects.next_deadline(SID, run(cursor=1), decision) == Deadline(SID, PLAN, 1, 2)


def test_a_failure_ends_the_run_with_the_reason_and_emits_no_step_events():
    todo = effects.of(SID, Decision("fail", 1, reason="out of attempts"), run(), NODES)
    assert todo.events == ()
    assert (todo.ending, todo.reason, todo.repeat) == ("failed", "out of attempts", False)
    assert todo.clear == (Deadline(SID, PLAN, 1, 1),)


def test_an_announcement_repeats_the_end_and_touches_no_deadline():
    finished = effects.of(SID, Decision("announce", 2), run(cursor=3, state="completed"), NODES)
    assert (finished.ending, finished.repeat, finished.clear) == ("completed", True, ())
    failed = effects.of(SID, Decision("announce", 1), run(state="failed"), NODES)
    assert (failed.ending, failed.repeat, failed.reason) == ("failed", True, "")


def test_every_path_to_the_same_attempt_yields_the_same_event_ids():
    first = effects.dispatched(SID, PLAN, NODES, 1, 2)
    again = effects.of(SID, Decision("retry", 1, attempt=2), run(cursor=1), NODES).events
    assert [e.event_id for e in first] == [e.event_id for e in again]
    assert isinstance(first[1], StepProgressed)
