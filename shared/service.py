"""The service kit: broker, publishers, subscribers, connections, lifespan, ASGI app, serving.

Every Kafka-driven service's `main.py` states what is its own (settings, how its `Deps` are
built) and gets the rest from here; its topics come from its topology entry:

    service = Service.declared(topology.node("planner"), settings, handlers=handlers, model=recorded_model)
    app = service.app(lambda opened: handlers.Deps(compiled=service.publisher_of(PlanCompiled), ...))

`declared` subscribes `handlers.on_<event_name>` to each consumed event's topic in its
consumer group, and declares a publisher for each produced event.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from faststream import ContextRepo
from faststream.asgi import AsgiFastStream
from redis.asyncio import Redis

from schemas.topics import Topic
from shared.app import build_app, serve
from shared.bus import consumer_options, make_broker
from shared.handling import is_scoped
from shared.redis import make_redis
from shared.settings import InfraSettings


@dataclass(frozen=True, kw_only=True)
class Opened:
    """The connections a running service holds, handed to its `Deps` builder."""

    redis: Redis
    model: Any = None  # the service's model port (usage-recording), when it has one


class Service:
    """One service's wiring; see the module docstring."""

    def __init__(
        self,
        name: str,
        settings: InfraSettings,
        *,
        description: str,
        title: str | None = None,
        model: Callable[[Any, Redis], Any] | None = None,
    ) -> None:
        self.name, self.settings, self.description = name, settings, description
        self.title = title or f"planwire {name}"
        self.model = model  # (settings, redis) -> model port; kept out of model-free services
        self.broker = make_broker(settings, client_id=name)
        self.publishers: dict[type, Any] = {}

    @classmethod
    def declared(
        cls,
        node: Any,
        settings: InfraSettings,
        *,
        handlers: ModuleType,
        model: Callable[[Any, Redis], Any] | None = None,
    ) -> Service:
        """The service as `node` (a `planwire.topology.Node`) declares it."""
        if node.uses_model != (model is not None):
            raise ValueError(f"{node.name}: the topology says uses_model={node.uses_model}")
        service = cls(
            node.name, settings, description=node.description, title=node.title or None, model=model
        )
        for produced in node.produces:
            if (
                produced.event.topic is not None
            ):  # a command's topic is its consumer's: published by name
                service.publishers[produced.event] = service.publisher(
                    produced.event.topic, produced.event, produced.description
                )
        for consumed in node.consumes:
            if consumed.event.topic is not None:
                service.subscribe(
                    getattr(handlers, handler_name(consumed.event)),
                    consumed.event.topic,
                    group=consumed.group,
                    **service.turn_path_options(consumed),
                )
        return service

    def turn_path_options(self, consumed: Any) -> dict[str, Any]:
        """A turn-path consumer's own fetch wait, when the settings give one."""
        wait = self.settings.turn_fetch_max_wait_ms
        return {"fetch_max_wait_ms": wait} if consumed.turn_path and wait is not None else {}

    def publisher_of(self, event: type) -> Any:
        """The declared publisher of a produced event."""
        return self.publishers[event]

    def publisher(self, topic: Topic, schema: type, description: str) -> Any:
        """A declared publisher (it appears in the AsyncAPI document)."""
        return self.broker.publisher(topic.name, schema=schema, description=description)

    def subscribe(
        self, handler: Callable[..., Any], *topics: Topic, group: str, **options: Any
    ) -> Any:
        """Subscribe a `@handles` handler to `topics` in consumer group `group`."""
        if not is_scoped(handler):
            raise TypeError(f"{handler.__name__} is not wrapped by shared.handling.handles")
        subscriber = self.broker.subscriber(
            *(t.name for t in topics), **(consumer_options(self.settings, group) | options)
        )
        subscriber(handler)
        return subscriber

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[Opened]:
        """Redis (and the model, for services that call one), closed on the way out."""
        redis = make_redis(self.settings.redis_url, self.settings.redis_max_connections)
        model = self.model(self.settings, redis) if self.model else None
        try:
            yield Opened(redis=redis, model=model)
        finally:
            if model is not None:
                await model.aclose()
            await redis.aclose()

    def app(
        self,
        deps: Callable[[Opened], Any],
        *,
        running: Callable[[Any], AbstractAsyncContextManager[None]] | None = None,
    ) -> AsgiFastStream:
        """The ASGI app; its lifespan builds `deps` for the handlers and runs `running(deps)` alongside."""

        held: list[Redis] = []  # the open Redis, for the readiness probe

        async def redis_answers() -> bool:
            return bool(held) and bool(await held[0].ping())

        @asynccontextmanager
        async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
            async with self.opened() as opened:
                held[:] = [opened.redis]
                built = deps(opened)
                if hasattr(built, "claim_lease_s"):
                    built.claim_lease_s = self.settings.claim_lease_s
                context.set_global("deps", built)
                async with running(built) if running else nullcontext():
                    yield

        return build_app(
            self.broker,
            title=self.title,
            description=self.description,
            lifespan=lifespan,
            ready=(redis_answers,),
        )

    def serve(self, app: Any) -> None:
        """Run the app under uvicorn with this service's settings."""
        serve(app, self.settings, self.name)


def handler_name(event: type) -> str:
    """`ContextTrimmed` -> `on_context_trimmed`: the handler every consumer names that way."""
    return "on_" + re.sub(r"(?<!^)(?=[A-Z])", "_", event.__name__).lower()
