"""A service polls at its own waits while it has traffic and at the quiet wait once it has none."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from shared.pace import Pace, fetch_wait


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def started(wait_ms: int) -> SimpleNamespace:
    """A started subscriber as FastStream holds it: its aiokafka consumer and fetcher."""
    return SimpleNamespace(
        consumer=SimpleNamespace(_fetcher=SimpleNamespace(_fetch_max_wait_ms=wait_ms))
    )


def wait_of(subscriber: SimpleNamespace) -> int:
    return subscriber.consumer._fetcher._fetch_max_wait_ms


def test_busy_consumers_keep_their_own_wait_and_quiet_ones_take_the_longer_quiet_wait():
    assert fetch_wait(50, 1000, idle_s=5, quiet_after_s=120) == 50
    assert fetch_wait(50, 1000, idle_s=120, quiet_after_s=120) == 1000
    assert fetch_wait(250, 1000, idle_s=600, quiet_after_s=120) == 1000
    # A quiet wait shorter than a consumer's own never makes it poll faster.
    assert fetch_wait(500, 200, idle_s=600, quiet_after_s=120) == 500
    # Off: the consumer's own wait whatever the traffic.
    assert fetch_wait(50, None, idle_s=10_000, quiet_after_s=120) == 50


def test_a_service_that_has_seen_nothing_starts_quiet_and_the_first_message_wakes_every_consumer():
    clock = Clock()
    pace = Pace(1000, 120.0, clock=clock)
    turns, replies = started(50), started(250)
    pace.add(turns, 50)
    pace.add(replies, 250)

    pace.apply()
    assert (wait_of(turns), wait_of(replies)) == (1000, 1000)

    pace.mark()  # a message consumed or published: busy at once, no tick needed
    assert (wait_of(turns), wait_of(replies)) == (50, 250)


def test_a_busy_service_goes_quiet_only_after_the_quiet_spell():
    clock = Clock()
    pace = Pace(1000, 120.0, clock=clock)
    turns = started(50)
    pace.add(turns, 50)
    pace.mark()

    clock.now += 119
    pace.apply()
    assert wait_of(turns) == 50
    pace.mark()  # traffic restarts the spell
    clock.now += 119
    pace.apply()
    assert wait_of(turns) == 50
    clock.now += 1
    pace.apply()
    assert wait_of(turns) == 1000


def test_consumers_not_started_yet_are_paced_once_they_are():
    clock = Clock()
    pace = Pace(1000, 120.0, clock=clock)
    late = SimpleNamespace(consumer=None)
    pace.add(late, 50)
    pace.apply()  # nothing to set yet, and no error
    late.consumer = started(50).consumer
    pace.apply()
    assert wait_of(late) == 1000


def test_off_leaves_every_wait_alone():
    pace = Pace(None, 120.0, clock=Clock())
    turns = started(50)
    pace.add(turns, 50)
    pace.apply()
    pace.mark()
    assert wait_of(turns) == 50 and not pace.quiet()


def test_an_aiokafka_without_the_fetcher_wait_is_said_once_and_left_alone(caplog):
    pace = Pace(1000, 120.0, clock=Clock())
    odd = SimpleNamespace(consumer=SimpleNamespace(_fetcher=SimpleNamespace()))
    pace.add(odd, 50)
    with caplog.at_level(logging.WARNING, logger="planwire.pace"):
        pace.apply()
        pace.apply()
    assert [r.message for r in caplog.records].count(
        "this aiokafka has no fetcher wait to set: consumers keep their own"
    ) == 1
    assert not hasattr(odd.consumer._fetcher, "_fetch_max_wait_ms")


def test_a_service_paces_its_consumer_with_that_consumers_own_wait():
    from schemas.topology import node
    from services.dispatcher import handlers as dispatcher
    from services.trimmer import handlers
    from shared.service import Service
    from shared.settings import InfraSettings

    settings = InfraSettings(
        fetch_max_wait_ms=250, turn_fetch_max_wait_ms=50, quiet_fetch_max_wait_ms=1000
    )
    service = Service.declared(node("trimmer"), settings, handlers=handlers)
    paced = {s.group_id: wait for s, wait in service.pace.paced}
    assert paced == {"trimmer": 50}
    off_path = Service.declared(node("dispatcher"), settings, handlers=dispatcher)
    assert {s.group_id: wait for s, wait in off_path.pace.paced} == {"dispatcher": 250}
    assert service.pace.on and service.pace.quiet_ms == 1000
    assert not Service.declared(node("trimmer"), InfraSettings(), handlers=handlers).pace.on
