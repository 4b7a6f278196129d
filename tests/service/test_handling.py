"""The subscriber scope every handler runs in: claims, timing and counting, in one place."""

from __future__ import annotations

import pytest
import pytest_asyncio
from prometheus_client import REGISTRY
from redis.asyncio import Redis

from schemas.turn import TurnReceived
from services.classifier import handlers as classifier
from services.trimmer import handlers as trimmer
from shared.idempotency import AlreadyProcessed
from shared.model import HeuristicModel
from shared.redis import session_key
from shared.service import Service
from shared.settings import InfraSettings
from tests.support.inmemory import Services


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest_asyncio.fixture
async def services(redis_url):
    redis = Redis.from_url(redis_url, decode_responses=True)
    yield Services(redis, HeuristicModel())
    await redis.aclose()


async def test_a_turn_is_timed_and_counted_by_every_service_that_handled_it(services):
    labels = [
        ("trimmer", "TurnReceived"),
        ("annotator", "ContextTrimmed"),
        ("classifier", "ContextTrimmed"),
        ("conversation", "NotesUpdated"),
    ]
    handled = {
        pair: sample("planwire_events_handled_total", service=pair[0], event=pair[1])
        for pair in labels
    }
    timed = {
        pair: sample("planwire_handler_seconds_count", service=pair[0], event=pair[1])
        for pair in labels
    }
    await services.say(await services.new_session(), 1, "Post new Stripe payments to Slack.")
    for pair in labels:
        assert (
            sample("planwire_events_handled_total", service=pair[0], event=pair[1])
            == handled[pair] + 1
        ), pair
        assert (
            sample("planwire_handler_seconds_count", service=pair[0], event=pair[1])
            == timed[pair] + 1
        ), pair


async def test_a_redelivered_event_is_refused_and_a_skipped_one_is_not_claimed(services):
    session_id = await services.new_session()
    turn = TurnReceived(
        session_id=session_id, turn_id="t1", text="Post new Stripe payments to Slack.", turn_seq=1
    )
    trimmed = services.routes[TurnReceived][0][1]
    await trimmer.on_turn_received(turn, trimmed)
    with pytest.raises(AlreadyProcessed):
        await trimmer.on_turn_received(turn, trimmed)
    gathering_turn = services.bus.queue[-1]  # ContextTrimmed while gathering: not the classifier's
    verdicts = next(
        deps
        for handler, deps in services.routes[type(gathering_turn)]
        if handler is classifier.on_context_trimmed
    )
    await classifier.on_context_trimmed(gathering_turn, verdicts)
    assert not await services.redis.exists(
        session_key(session_id, "seen", "classifier", str(gathering_turn.event_id))
    )


def test_the_kit_refuses_a_handler_without_the_scope():
    async def on_something(event, deps=None) -> None:
        """Not wrapped."""

    with pytest.raises(TypeError):
        Service("nothing", InfraSettings(), description="").subscribe(on_something, group="g")
