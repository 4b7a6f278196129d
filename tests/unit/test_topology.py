"""The topology is declared once, and the code agrees with it."""

from __future__ import annotations

import importlib
import re

import pytest

from planwire.topology import SERVICES
from schemas.registry import CONTRACTS
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
def test_each_service_subscribes_what_the_topology_declares(node):
    module = importlib.import_module(f"services.{node.name}.main")
    broker = module.service.broker
    wired = {
        (topic, sub.calls[0].handler._original_call.__name__)
        for sub in broker.subscribers
        for topic in sub.topic_names
    }
    assert wired == {(c.event.topic.name, handler_name(c.event)) for c in node.consumes}
