"""Every service's handlers over one Redis and an in-memory bus: a whole case, no Kafka.

Messages are delivered in publish order to every handler that consumes their type (as
schemas/topology.py declares), the way the services' consumer groups would each get a copy.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from faststream.kafka import TestKafkaBroker
from redis.asyncio import Redis

from catalog import load_catalogue
from planwire.evaluate import MAX_NUDGES, NUDGE
from schemas.envelope import Event
from schemas.plan import WorkflowCompleted, WorkflowFailed
from schemas.topology import SERVICES
from schemas.turn import Phase, ReplyGenerated, TurnReceived
from services.annotator import handlers as annotator
from services.annotator.store import NotesStore
from services.classifier import handlers as classifier
from services.conversation import handlers as conversation
from services.conversation.store import RepliedNotes
from services.dispatcher import handlers as dispatcher
from services.dispatcher.store import RunStore
from services.indexer import handlers as indexer
from services.indexer.logic import Limits
from services.indexer.store import OutlineStore
from services.planner import handlers as planner
from services.planner.store import PlanStore
from services.specialist import handlers as specialist
from services.specialist.store import StepStore
from services.trimmer import handlers as trimmer
from services.trimmer.store import TranscriptStore
from shared.idempotency import AlreadyProcessed
from shared.model import ModelPort
from shared.model.usage import UsageRecordingModel
from shared.redis import session_key
from shared.service import Service, handler_name

CATALOGUE = load_catalogue()
TTL = 3600


class Bus:
    """Everything the handlers publish, in order; a publisher for every Deps field."""

    def __init__(self) -> None:
        self.sent: list[Event] = []
        self.queue: list[Event] = []

    def publisher(self) -> Bus:
        return self

    async def publish(self, message: Event, topic: str = "", *, key: bytes | None = None) -> None:
        assert key == message.key()
        self.sent.append(message)
        self.queue.append(message)

    def of(self, kind: type[Event]) -> list:
        return [m for m in self.sent if isinstance(m, kind)]


class Services:
    """The handlers of every service but the gateway: trimmer, indexer, annotator, ..., runners."""

    def __init__(self, redis: Redis, model: ModelPort) -> None:
        self.redis, self.bus = redis, Bus()
        model = UsageRecordingModel(model, redis)  # as every service's lifespan builds it
        bus, common = self.bus, {"redis": redis, "dedupe_ttl_s": TTL}
        trimmed = trimmer.Deps(
            store=TranscriptStore(redis, TTL), trimmed=bus, budget_tokens=1500, **common
        )
        notes = annotator.Deps(
            store=NotesStore(redis, TTL),
            model=model,
            catalogue=CATALOGUE,
            published=bus,
            threshold=0.8,
            **common,
        )
        outline = indexer.Deps(
            store=OutlineStore(redis, TTL),
            model=model,
            catalogue=CATALOGUE,
            limits=Limits(),
            **common,
        )
        talk = conversation.Deps(
            model=model,
            catalogue=CATALOGUE,
            replies=bus,
            deltas=bus,
            replied=RepliedNotes(redis, TTL),
            **common,
        )
        verdicts = classifier.Deps(
            model=model, catalogue=CATALOGUE, classified=bus, confirmed=bus, **common
        )
        plans = planner.Deps(
            store=PlanStore(redis, TTL), model=model, catalogue=CATALOGUE, compiled=bus, **common
        )
        runs = dispatcher.Deps(
            store=RunStore(redis, TTL),
            broker=bus,
            progressed=bus,
            completed=bus,
            failed=bus,
            step_timeout_s=20,
            max_attempts=3,
            **common,
        )
        steps = specialist.Deps(
            store=StepStore(redis, TTL), model=model, catalogue=CATALOGUE, completed=bus, **common
        )
        wired = {
            "trimmer": (trimmer, trimmed),
            "indexer": (indexer, outline),
            "annotator": (annotator, notes),
            "conversation": (conversation, talk),
            "classifier": (classifier, verdicts),
            "planner": (planner, plans),
            "dispatcher": (dispatcher, runs),
            "specialist": (specialist, steps),
        }
        self.routes: dict[type[Event], list] = {}  # as schemas/topology.py declares it
        for node in SERVICES:
            if node.name in wired:
                module, deps = wired[node.name]
                for consumed in node.consumes:
                    self.routes.setdefault(consumed.event, []).append(
                        (getattr(module, handler_name(consumed.event)), deps)
                    )

    async def drain(self) -> None:
        """Deliver until nothing is left; a duplicate is skipped as the middleware does."""
        while self.bus.queue:
            message = self.bus.queue.pop(0)
            for handler, deps in self.routes.get(type(message), []):
                with suppress(AlreadyProcessed):
                    await handler(message, deps)

    async def new_session(self) -> str:
        """A session in the gathering phase, as the gateway creates it."""
        session_id = f"case-{uuid.uuid4().hex[:10]}"
        await self.redis.set(session_key(session_id, "phase"), Phase.GATHERING)
        return session_id

    async def say(self, session_id: str, seq: int, text: str) -> ReplyGenerated:
        """One user turn, handled to the end; returns the reply the user would see."""
        await self.bus.publish(
            turn := TurnReceived(session_id=session_id, turn_id=f"t{seq}", text=text, turn_seq=seq),
            key=turn.key(),
        )
        await self.drain()
        return self.bus.of(ReplyGenerated)[-1]

    async def play(self, case: dict) -> Event:
        """The case's turns, the nudges `planwire eval` allows, the confirmation; the run's end."""
        session_id, texts = await self.new_session(), list(case["turns"])
        for seq, text in enumerate(texts, 1):
            reply = await self.say(session_id, seq, text)
        for seq in range(len(texts) + 1, len(texts) + 1 + MAX_NUDGES):
            if reply.phase == Phase.CONFIRMING:
                break
            reply = await self.say(session_id, seq, NUDGE)
        await self.say(session_id, seq + 1, case["confirm"])
        return (self.bus.of(WorkflowCompleted) + self.bus.of(WorkflowFailed))[-1]


@asynccontextmanager
async def serving(service: Service, deps: object) -> AsyncIterator[TestKafkaBroker]:
    """A service's real broker (subscribers, middlewares) in FastStream's in-memory test mode."""
    service.broker.context.set_global("deps", deps)
    async with TestKafkaBroker(service.broker) as broker:
        yield broker


async def deliver(broker: TestKafkaBroker, event: Event) -> None:
    """Publish an event on its own topic, keyed by its session, as its producer would."""
    await broker.publish(event.model_dump(mode="json"), event.topic.name, key=event.key())


def sent(service: Service, kind: type[Event]) -> list:
    """What the service published of one event type (its declared publisher's record)."""
    return [
        kind.model_validate(call.args[0]) for call in service.publisher_of(kind).mock.call_args_list
    ]
