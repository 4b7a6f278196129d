"""One consumer per service: each record reaches its own topic's handler, and no other."""

from __future__ import annotations

from faststream import Context
from faststream.kafka import TestKafkaBroker
from pydantic import BaseModel

from schemas.topics import Topic
from shared.handling import handles
from shared.service import Service
from shared.settings import InfraSettings


class Said(BaseModel):
    session_id: str
    event_id: str
    text: str


async def test_one_consumer_hands_each_topic_to_its_own_handler():
    seen: list[tuple[str, str]] = []

    @handles("probe", claim=False)
    async def on_turn(event: Said, deps: object = Context()) -> None:
        seen.append(("turn", event.text))

    @handles("probe", claim=False)
    async def on_reply(event: Said, deps: object = Context()) -> None:
        seen.append(("reply", event.text))

    service = Service("probe", InfraSettings(), description="")
    turns, replies = Topic("probe.turns.v1", 1), Topic("probe.replies.v1", 1)
    service.consume({turns: on_turn, replies: on_reply}, group="probe")
    assert len(service.broker.subscribers) == 1

    service.broker.context.set_global("deps", None)
    async with TestKafkaBroker(service.broker) as broker:
        for topic, text in ((turns, "hi"), (replies, "hello"), (turns, "again")):
            await broker.publish({"session_id": "s", "event_id": text, "text": text}, topic.name)

    assert seen == [("turn", "hi"), ("reply", "hello"), ("turn", "again")]
