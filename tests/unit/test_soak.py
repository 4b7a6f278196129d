"""`planwire soak`'s pure part: pacing, the ramp's saturation, RSS growth and the verdict."""

from __future__ import annotations

import pytest

from planwire.soak import (
    Pacer,
    Sample,
    SoakReport,
    baseline_s,
    best_step,
    growth,
    growth_pct,
    saturated,
)


def test_turns_are_spaced_by_the_rate_whoever_asks():
    pacer = Pacer(rate=4.0)
    assert [pacer.slot(10.0) for _ in range(4)] == [10.0, 10.25, 10.5, 10.75]


def test_a_pacer_that_fell_behind_sends_at_most_a_second_of_turns_at_once():
    pacer = Pacer(rate=2.0)
    pacer.slot(0.0)
    late = [pacer.slot(60.0) for _ in range(4)]  # every session was busy for a minute
    assert late == [60.0, 60.0, 60.0, 60.5]  # the burst: one second's worth, then the rate


@pytest.mark.parametrize(
    "steps, done",
    [
        ([(4, 10.0)], False),
        ([(4, 10.0), (8, 10.4)], True),  # 4% more: saturated
        ([(4, 10.0), (8, 10.6)], False),
        ([(4, 10.0), (8, 20.0), (16, 12.0)], True),  # fell back
    ],
)
def test_the_ramp_stops_once_more_sessions_add_less_than_five_percent(steps, done):
    assert saturated(steps) is done


def test_the_saturation_is_the_best_step_not_the_last():
    assert best_step([(4, 10.0), (8, 20.0), (16, 12.0)]) == (8, 20.0)


def test_growth_is_from_minute_five_or_a_sixth_of_a_shorter_run():
    assert baseline_s(30) == 300.0 and baseline_s(120) == 300.0
    assert baseline_s(12) == 120.0 and baseline_s(0.5) == 5.0


def test_growth_percent_arithmetic():
    assert growth_pct(100.0, 104.1) == 4.1
    assert growth_pct(200.0, 180.0) == -10.0
    assert growth_pct(0.0, 50.0) == 0.0  # no baseline, no figure


def samples() -> list[Sample]:
    return [
        Sample(0.0, 0, {"gateway": 50.0, "annotator": 90.0, "valkey": 5.0}),
        Sample(290.0, 900, {"gateway": 80.0, "annotator": 100.0, "valkey": 20.0}),
        Sample(300.0, 1000, {"gateway": 100.0, "annotator": 100.0, "valkey": 20.0}),
        Sample(1800.0, 5400, {"gateway": 104.1, "annotator": 109.0, "valkey": 80.0}),
    ]


def test_growth_runs_from_the_first_sample_at_the_baseline_to_the_last():
    found = {g.process: (g.baseline_mb, g.end_mb, g.pct) for g in growth(samples(), 300.0)}
    assert found == {
        "gateway": (100.0, 104.1, 4.1),
        "annotator": (100.0, 109.0, 9.0),
        "valkey": (20.0, 80.0, 300.0),
    }


def test_a_process_that_died_is_left_out_of_growth():
    gone = [*samples()[:-1], Sample(1800.0, 5400, {"gateway": 100.0})]
    assert [g.process for g in growth(gone, 300.0)] == ["gateway"]


def report(**changes) -> SoakReport:
    figures = {
        "minutes": 30.0,
        "rate": 3.0,
        "rate_source": "stated with --rate",
        "turns": 5400,
        "sessions": 700,
        "lost": 0,
        "errors": {},
        "samples": samples(),
        "holders": ("valkey",),
    }
    return SoakReport(**{**figures, **changes})


def test_the_verdict_names_the_planwire_process_that_grew_most_and_shows_the_data_holders():
    result = report()
    assert result.ok
    assert result.last_line() == (
        "soak: 30.0 min, 5400 turns, lost 0, errors 0, rss growth max 9.0% (annotator); "
        "data holders valkey +300.0%"
    )
    assert result.to_json()["rss_growth_max_process"] == "annotator"
    assert result.achieved == 3.0  # 5400 turns in 30 minutes
    assert result.table()[0].split() == [
        "process",
        "MB",
        "at",
        "5.0",
        "min",
        "MB",
        "at",
        "30.0",
        "min",
        "growth",
    ]


@pytest.mark.parametrize(
    "changes",
    [
        {"lost": 1},
        {"errors": {"http 503": 1}},
        {"holders": ()},  # Valkey held to the limit like a service: +300%
        {"samples": [*samples()[:-1], Sample(1800.0, 5400, {"gateway": 111.0})]},
    ],
)
def test_a_lost_turn_an_error_or_ten_percent_growth_fails_the_soak(changes):
    assert not report(**changes).ok
