"""The bench's pure parts: reading handler timings from /metrics, percentiles."""

from __future__ import annotations

from planwire.bench import parse_handler_metrics, percentile


def test_handler_timings_are_read_from_a_metrics_page():
    page = "\n".join(
        [
            "# HELP planwire_handler_seconds Time to handle one event.",
            'planwire_handler_seconds_bucket{event="TurnReceived",le="0.005",service="trimmer"} 1.0',
            'planwire_handler_seconds_count{event="TurnReceived",service="trimmer"} 4.0',
            'planwire_handler_seconds_sum{event="TurnReceived",service="trimmer"} 0.2',
            'planwire_handler_seconds_created{event="TurnReceived",service="trimmer"} 1.7e9',
        ]
    )
    assert parse_handler_metrics(page) == {("trimmer", "TurnReceived"): (0.2, 4.0)}


def test_percentiles_are_nearest_rank_like_the_peers():
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 0.5), percentile(values, 0.99), percentile([3.0], 0.99)) == (
        51.0,
        100.0,
        3.0,
    )
