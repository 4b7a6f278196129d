"""The service kit: broker, publishers, subscribers, connections, lifespan, ASGI app, serving.

Every Kafka-driven service's `main.py` declares what is its own (settings, topics, how its
`Deps` are built) and gets the rest from here:

    service = Service("planner", settings, description="...", model=recorded_model)
    compiled = service.publisher(PLAN_COMPILED, PlanCompiled, "The compiled plan of a session.")
    service.subscribe(handlers.on_requirements_confirmed, REQUIREMENTS_CONFIRMED, group="planner.confirmed")
    app = service.app(lambda opened: handlers.Deps(redis=opened.redis, ...))
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass
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
        self, name: str, settings: InfraSettings, *, description: str, title: str | None = None, model: Callable[[Any, Redis], Any] | None = None
    ) -> None:
        self.name, self.settings, self.description = name, settings, description
        self.title = title or f"planwire {name}"
        self.model = model  # (settings, redis) -> model port; kept out of model-free services
        self.broker = make_broker(settings, client_id=name)

    def publisher(self, topic: Topic, schema: type, description: str) -> Any:
        """A declared publisher (it appears in the AsyncAPI document)."""
        return self.broker.publisher(topic.name, schema=schema, description=description)

    def subscribe(self, handler: Callable[..., Any], *topics: Topic, group: str, **options: Any) -> Any:
        """Subscribe a `@handles` handler to `topics` in consumer group `group`."""
        if not is_scoped(handler):
            raise TypeError(f"{handler.__name__} is not wrapped by shared.handling.handles")
        subscriber = self.broker.subscriber(*(t.name for t in topics), **(consumer_options(self.settings, group) | options))
        subscriber(handler)
        return subscriber

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[Opened]:
        """Redis (and the model, for services that call one), closed on the way out."""
        redis = make_redis(self.settings.redis_url)
        model = self.model(self.settings, redis) if self.model else None
        try:
            yield Opened(redis=redis, model=model)
        finally:
            if model is not None:
                await model.aclose()
            await redis.aclose()

    def app(self, deps: Callable[[Opened], Any], *, running: Callable[[Any], AbstractAsyncContextManager] | None = None) -> AsgiFastStream:
        """The ASGI app; its lifespan builds `deps` for the handlers and runs `running(deps)` alongside."""

        @asynccontextmanager
        async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
            async with self.opened() as opened:
                built = deps(opened)
                context.set_global("deps", built)
                async with running(built) if running else nullcontext():
                    yield

        return build_app(self.broker, title=self.title, description=self.description, lifespan=lifespan)

    def serve(self, app: Any) -> None:
        """Run the app under uvicorn with this service's settings."""
        serve(app, self.settings)
