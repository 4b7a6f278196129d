"""The topology is declared once, and the code agrees with it."""

from __future__ import annotations

import importlib
import re
from types import SimpleNamespace

import pytest

from schemas.registry import CONTRACTS
from schemas.topology import SERVICES
from shared.service import handler_name

PRODUCERS = {p.event: n.name for n in SERVICES for p in n.produces}


def kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def test_every_contract_has_one_producer_and_every_consumed_event_a_producer():
    produced = [p.event for n in SERVICES for p in n.produces]
    assert sorted(c.__name__ for c in produced) == sorted(c.__name__ for c in CONTRACTS)
    assert {c.event for n in SERVICES for c in n.consumes} <= set(produced)


@pytest.mark.parametrize(
    "event", [c for c in CONTRACTS if c.topic is not None], ids=lambda c: c.__name__
)
def test_an_event_topic_is_named_for_its_producer(event):
    assert event.topic.name == f"{PRODUCERS[event]}.{kebab(event.__name__)}.v1"


@pytest.mark.parametrize(
    "node", [n for n in SERVICES if n.name != "specialist"], ids=lambda n: n.name
)
async def test_each_service_reads_its_topics_through_one_consumer_each_to_its_handler(node):
    module = importlib.import_module(f"services.{node.name}.main")
    (subscriber,) = module.service.broker.subscribers  # one consumer, one group join
    assert subscriber.group_id == node.name
    declared = {c.event.topic.name: handler_name(c.event) for c in node.consumes}
    assert set(subscriber.topic_names) == set(declared)
    for topic, handler in declared.items():
        record = SimpleNamespace(processed=False, raw_message=SimpleNamespace(topic=topic))
        taken = [
            c.handler._original_call.__name__ for c in subscriber.calls if await c.filter(record)
        ]
        assert taken == [handler], topic


def test_the_turn_path_is_the_hops_a_user_waits_on_for_a_reply():
    on_path = {(n.name, c.event.__name__) for n in SERVICES for c in n.consumes if c.turn_path}
    gathering_turn = {
        ("trimmer", "TurnReceived"),
        ("annotator", "ContextTrimmed"),
        ("conversation", "NotesUpdated"),
        ("gateway", "ReplyGenerated"),
    }
    assert gathering_turn <= on_path
    # Planning and running a workflow, and closing a change unit, keep the shared wait.
    assert not {name for name, _ in on_path} & {"planner", "dispatcher", "specialist"}
    assert ("trimmer", "ReplyGenerated") not in on_path


def test_turn_path_consumers_poll_at_the_turn_wait_and_the_rest_at_the_shared_one():
    from schemas.topology import node
    from services.dispatcher import handlers as dispatcher
    from services.trimmer import handlers
    from shared.service import Service
    from shared.settings import InfraSettings

    settings = InfraSettings(fetch_max_wait_ms=500, turn_fetch_max_wait_ms=40)
    service = Service.declared(node("trimmer"), settings, handlers=handlers)
    waits = {
        s.group_id: s._connection_args["fetch_max_wait_ms"] for s in service.broker.subscribers
    }
    assert waits == {"trimmer": 40}  # its one consumer reads a turn-path topic among others
    off_path = Service.declared(node("dispatcher"), settings, handlers=dispatcher)
    assert [s._connection_args["fetch_max_wait_ms"] for s in off_path.broker.subscribers] == [500]
    unset = Service.declared(
        node("trimmer"), InfraSettings(fetch_max_wait_ms=300), handlers=handlers
    )
    assert {s._connection_args["fetch_max_wait_ms"] for s in unset.broker.subscribers} == {300}
