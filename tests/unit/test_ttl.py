"""When a store refreshes its keys' TTLs: the first write of a session, then once a window."""

from __future__ import annotations

from shared.ttl import Freshness, window_for


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_group_is_refreshed_first_then_only_after_the_window():
    clock = Clock()
    fresh = Freshness(60.0, clock=clock)
    assert fresh.due("s1", "transcript")
    fresh.refreshed("s1", "transcript")
    clock.now = 59.0
    assert not fresh.due("s1", "transcript")
    assert fresh.due("s1", "outbox") and fresh.due("s2", "transcript")  # each its own
    clock.now = 60.0
    assert fresh.due("s1", "transcript")


def test_a_forgotten_session_is_refreshed_again_never_skipped():
    fresh = Freshness(60.0, max_entries=2, clock=Clock())
    for session in ("a", "b", "c"):
        fresh.refreshed(session, "g")
    assert fresh.due("a", "g") and not fresh.due("c", "g")


def test_the_window_is_an_hour_or_a_tenth_of_a_short_ttl():
    assert window_for(30 * 24 * 3600) == 3600 and window_for(600) == 60
