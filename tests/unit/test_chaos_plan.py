"""`planwire chaos`'s pure part: the seeded kill plan and the verdict's figures."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from planwire.chaos import (
    Fault,
    SessionRun,
    comparable,
    kill_counts,
    schedule,
    verdict,
    window_for,
)

SERVICES = ["gateway", "trimmer", "annotator", "dispatcher"]
DOC = {"workflow_id": "wf-1", "session_id": "s1", "plan_id": "p1", "created_at": "t", "nodes": [1]}


def test_the_plan_replays_from_its_seed_and_kills_every_service_three_times():
    plan = schedule(11, SERVICES, window_s=40, once=("valkey",))
    assert plan == schedule(11, SERVICES, window_s=40, once=("valkey",))
    assert plan != schedule(12, SERVICES, window_s=40, once=("valkey",))
    assert Counter(f.target for f in plan) == {**dict.fromkeys(SERVICES, 3), "valkey": 1}
    assert plan == sorted(plan)


def test_a_service_is_back_before_it_dies_again_and_every_kill_is_inside_the_window():
    for seed in range(50):
        plan = schedule(seed, SERVICES, window_s=30, once=("valkey",))
        for target in SERVICES:
            mine = [f for f in plan if f.target == target]
            for before, after in itertools.pairwise(mine):
                assert before.at_s + before.down_s <= after.at_s
        assert all(f.at_s >= 0 and f.at_s + f.down_s <= 30 and 0.5 <= f.down_s <= 3 for f in plan)


REPLICATED = ["gateway", "annotator", "annotator-2", "specialist", "specialist-2"]


@pytest.mark.parametrize("kills_each", [1, 3, 5, 8])
def test_every_process_replicas_included_dies_at_least_k_times_and_valkey_once(kills_each):
    for seed in range(20):
        window = window_for(10.0, 200, 8, kills_each)
        plan = schedule(seed, REPLICATED, window_s=window, kills_each=kills_each, once=("valkey",))
        counts = kill_counts(plan, [*REPLICATED, "valkey"])
        assert all(counts[p] >= kills_each for p in REPLICATED) and counts["valkey"] >= 1
        for target in REPLICATED:  # back before it dies again, however many kills
            mine = [f for f in plan if f.target == target]
            assert all(a.at_s + a.down_s <= b.at_s for a, b in itertools.pairwise(mine))


def test_kill_counts_follow_the_given_order_and_show_a_part_never_killed():
    plan = [Fault(1.0, "b", 1.0), Fault(2.0, "a", 1.0), Fault(3.0, "b", 1.0)]
    assert list(kill_counts(plan, ["a", "b", "c"]).items()) == [("a", 1), ("b", 2), ("c", 0)]


def test_the_window_stretches_with_the_sessions_but_never_below_the_old_minimum():
    assert window_for(6.4, 8, 8) == 30.0  # the CI run: as before
    assert window_for(40.0, 8, 8) == 40.0  # a slow reference: its own length, as before
    assert window_for(10.0, 200, 8) == 250.0  # 25 times the reference's sessions
    assert window_for(1.0, 8, 8, kills_each=10) == 60.0  # room for each of 10 kills


def test_a_window_too_short_for_three_kills_is_refused():
    with pytest.raises(ValueError, match="too short"):
        schedule(1, SERVICES, window_s=6)


def run(case="c", **kwargs) -> SessionRun:
    defaults = {
        "sent": ["t1", "t2"],
        "replies": {"t1": 1, "t2": 1},
        "completions": 1,
        "step_effects": {"n1": 1, "n2": 1},
        "workflow": comparable(DOC),
    }
    return SessionRun(case, **{**defaults, **kwargs})


def test_a_clean_run_passes_and_prints_the_issue_line():
    result = verdict([run(), run()], {"c": comparable(DOC)}, kills=28, dlq=0)
    assert result.ok and result.steps == 4
    assert result.last_line().startswith(
        "chaos: 2/2 completed, lost 0, duplicated 0, differing 0, kills 28, dlq 0"
    )


def test_the_last_line_also_says_the_replicas_and_the_fewest_kills():
    runs = [run(), run()]
    result = verdict(
        runs, {"c": comparable(DOC)}, 81, 0, replicas=2, fewest_kills=5, valkey_kills=1
    )
    assert result.last_line() == (
        "chaos: 2/2 completed, lost 0, duplicated 0, differing 0, kills 81, dlq 0, "
        "replicas 2, every service killed 5+ times, valkey 1"
    )


@pytest.mark.parametrize(
    "spoiled, figure",
    [
        ({"replies": {"t1": 1}}, "lost"),
        ({"replies": {"t1": 2, "t2": 1}}, "duplicated"),
        ({"completions": 2}, "duplicated"),
        ({"step_effects": {"n1": 2, "n2": 1}}, "repeated_steps"),
        ({"workflow": {**comparable(DOC), "nodes": [2]}}, "differing"),
        ({"workflow": None, "completions": 0}, "differing"),
    ],
)
def test_each_kind_of_harm_is_counted_and_fails_the_run(spoiled, figure):
    result = verdict([run(), run(**spoiled)], {"c": comparable(DOC)}, kills=1, dlq=0)
    assert getattr(result, figure) == 1 and not result.ok


def test_per_run_ids_do_not_make_workflows_differ():
    other = {**DOC, "workflow_id": "wf-2", "session_id": "s2", "plan_id": "p2", "created_at": "u"}
    assert comparable(other) == comparable(DOC)
    assert Fault(1.0, "a", 0.5) < Fault(2.0, "a", 0.5)


def test_a_harmed_session_says_what_went_wrong_so_it_can_be_found():
    harmed = run(replies={"t1": 2}, completions=2, step_effects={"n1": 2, "n2": 1})
    assert harmed.harms() == [
        "turn t2 never answered",
        "turn t1 answered 2 times",
        "completed 2 times",
        "step n1 stored 2 times",
    ]
    assert run().harms() == []
