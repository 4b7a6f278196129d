"""The service kit: broker, publishers, subscribers, connections, lifespan, ASGI app, serving.

Every Kafka-driven service's `main.py` states only what is its own (its settings, the odd
dependency) and gets the rest from here; its topics come from its entry in the declared
topology (`schemas/topology.py`), and what its `Deps` need beyond the kit it passes in:

    service = ModelService.declared(
        topology.node("planner"), handlers=handlers, provides={Catalogue: load_catalogue}
    )
    app = service.app()

`declared` reads every consumed event's topic through one consumer in the node's group (each
topic's records to `handlers.on_<event_name>`), declares a publisher for each produced event,
and (a `ModelService`, for a node that `uses_model`) opens the usage-recording model port.
`app()` builds `handlers.Deps` from its fields (`shared.wiring`): Redis, the broker, the model
port, the types passed as `provides`, `Publisher[E]` from the declared outputs, `RedisStore`
subclasses, settings by name; keyword arguments override a field. A field nothing fills fails
here, at start-up, naming it.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from faststream import ContextRepo
from faststream.asgi import AsgiFastStream
from faststream.kafka import KafkaBroker
from faststream.specification import AsyncAPI
from redis.asyncio import Redis

from schemas.topics import Topic
from schemas.topology import Node
from shared import wiring
from shared.app import build_app, serve
from shared.bus import adopt_offsets, consumer_options, make_broker
from shared.commits import commit_on_stop
from shared.handling import is_scoped
from shared.kafka_security import kafka_client_options
from shared.lanes import in_lanes
from shared.pace import Pace, looks_every
from shared.redis import make_redis, redis_password
from shared.settings import InfraSettings


@dataclass(frozen=True, kw_only=True)
class Opened:
    """The connections a running service holds, handed to its `Deps` builder."""

    redis: Redis
    model: Any = None  # the service's model port (usage-recording), when it has one


class Service:
    """One service's wiring; see the module docstring. A service that calls a model is a
    `shared.model.service.ModelService` (so model-free services never import the model)."""

    default_settings: Callable[[], InfraSettings] = InfraSettings
    default_model: Callable[[Any, Redis], Any] | None = None
    model_port: Any = None  # the type a `Deps` field asking for the model port names

    def __init__(
        self,
        name: str,
        settings: InfraSettings,
        *,
        description: str,
        title: str | None = None,
        model: Callable[[Any, Redis], Any] | None = None,
        handlers: ModuleType | None = None,
        provides: Mapping[type, Callable[[], Any]] | None = None,
    ) -> None:
        self.name, self.settings, self.description = name, settings, description
        self.title = title or f"planwire {name}"
        self.model = model  # (settings, redis) -> model port; kept out of model-free services
        self.handlers = handlers  # the module whose `Deps` app() builds
        self.provides = dict(provides or {})  # more types Deps fields may ask for, made once
        self.pace = Pace(settings.quiet_fetch_max_wait_ms, settings.quiet_after_s)
        self.broker = make_broker(
            settings, client_id=name, extra_middlewares=(self.pace.middleware(),)
        )
        # A handler waiting on a model leaves the process idle: run other sessions meanwhile.
        self.lanes = settings.key_concurrency if model is not None else 1
        self.publishers: dict[type, Any] = {}
        self.build_deps: Callable[[Opened], Any] | None = None  # what app() planned
        self.routes: dict[Topic, Callable[..., Any]] = {}  # every topic read -> its handler
        self.outputs: list[tuple[Topic, type, str]] = []  # every declared publisher
        self.group = name  # the declared consumer's group (`declared`)
        self.former: dict[str, str] = {}  # topic -> the group that read it before `group`

    @classmethod
    def declared(
        cls,
        node: Node,
        settings: InfraSettings | None = None,
        *,
        handlers: ModuleType,
        model: Callable[[Any, Redis], Any] | None = None,
        provides: Mapping[type, Callable[[], Any]] | None = None,
    ) -> Service:
        """The service as `node` declares it; without `settings`, the class's own
        (`default_settings`), without `model` its `default_model`. `provides`: type -> how to
        make one, for `Deps` fields of types the kit does not know (made once, on first use)."""
        model = model or cls.default_model
        if node.uses_model != (model is not None):
            raise ValueError(
                f"{node.name}: the topology says uses_model={node.uses_model}"
                + (": declare it with shared.model.service.ModelService" if node.uses_model else "")
            )
        if settings is None:
            settings = cls.default_settings()
        service = cls(
            node.name,
            settings,
            description=node.description,
            title=node.title or None,
            model=model,
            handlers=handlers,
            provides=provides,
        )
        for produced in node.produces:
            if (
                produced.event.topic is not None
            ):  # a command's topic is its consumer's: published by name
                service.publishers[produced.event] = service.publisher(
                    produced.event.topic, produced.event, produced.description
                )
        # A command (the step runtime's) is read on its runners' topics, subscribed by name.
        routes = {topic: c for c in node.consumes if (topic := c.event.topic) is not None}
        if routes:
            service.consume(
                {topic: getattr(handlers, handler_name(c.event)) for topic, c in routes.items()},
                group=node.group,
                **service.turn_path_options(any(c.turn_path for c in routes.values())),
            )
            service.group, service.former = node.group, node.former_groups()
        return service

    def turn_path_options(self, turn_path: bool) -> dict[str, Any]:
        """A turn-path consumer's own fetch wait, when the settings give one."""
        wait = self.settings.turn_fetch_max_wait_ms
        return {"fetch_max_wait_ms": wait} if turn_path and wait is not None else {}

    def publisher_of(self, event: type) -> Any:
        """The declared publisher of a produced event."""
        return self.publishers[event]

    def publisher(self, topic: Topic, schema: type, description: str) -> Any:
        """A declared publisher (it appears in the AsyncAPI document)."""
        self.outputs.append((topic, schema, description))
        return self.broker.publisher(topic.name, schema=schema, description=description)

    def subscribe(
        self, handler: Callable[..., Any], *topics: Topic, group: str, **options: Any
    ) -> Any:
        """Subscribe a `@handles` handler to `topics` in consumer group `group`."""
        if not is_scoped(handler):
            raise TypeError(f"{handler.__name__} is not wrapped by shared.handling.handles")
        return self.consume(dict.fromkeys(topics, handler), group=group, **options)

    def consume(
        self, routes: Mapping[Topic, Callable[..., Any]], *, group: str, **options: Any
    ) -> Any:
        """One consumer in group `group` for every topic of `routes`; each record goes to its
        topic's `@handles` handler. One consumer, not one per topic: each is a group join, a
        parked fetch and a heartbeat a second, busy or idle (docs/performance.md section 19)."""
        by_handler: dict[Callable[..., Any], list[str]] = {}
        for topic, handler in routes.items():
            if not is_scoped(handler):
                raise TypeError(f"{handler.__name__} is not wrapped by shared.handling.handles")
            by_handler.setdefault(handler, []).append(topic.name)
        self.routes |= routes
        chosen = consumer_options(self.settings, group) | options
        subscriber = self.broker.subscriber(*(t.name for t in routes), **chosen)
        for handler, names in by_handler.items():
            if len(by_handler) == 1:
                subscriber(handler)
            else:
                subscriber(handler, filter=on_topics(names))
        if self.lanes > 1:
            in_lanes(subscriber, self.lanes, self.settings.commit_interval_ms / 1000)
        commit_on_stop(subscriber)
        looks_every(subscriber, self.settings.fetcher_timeout_ms)
        self.pace.add(subscriber, chosen["fetch_max_wait_ms"])
        return subscriber

    def specification(self) -> AsyncAPI:
        """The AsyncAPI document: each topic read is a channel with its own event and handler.

        Built on a broker of its own that connects to nothing, with a subscriber per topic:
        FastStream describes every topic of one subscriber with every handler's payload, and
        the service reads all its topics through one (`consume`).
        """
        documented = KafkaBroker(self.settings.kafka_bootstrap)
        for topic, schema, description in self.outputs:
            documented.publisher(topic.name, schema=schema, description=description)
        for topic, handler in self.routes.items():
            documented.subscriber(topic.name)(handler)
        return AsyncAPI(documented, title=self.title, description=self.description, version="1.0.0")

    async def adopt_offsets(self) -> None:
        """Before the consumer first joins: its group takes over the offsets of the groups
        that read its topics before (`shared.bus.adopt_offsets`)."""
        if self.former:
            await adopt_offsets(
                self.settings.kafka_bootstrap,
                self.group,
                self.former,
                kafka_client_options(self.settings),
            )

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[Opened]:
        """Redis (and the model, for services that call one), closed on the way out."""
        redis = make_redis(
            self.settings.redis_url,
            self.settings.redis_max_connections,
            retries=self.settings.redis_retries,
            password=redis_password(self.settings),
        )
        model = self.model(self.settings, redis) if self.model else None
        try:
            yield Opened(redis=redis, model=model)
        finally:
            if model is not None:
                await model.aclose()
            await redis.aclose()

    def sources(self) -> wiring.Sources[Opened]:
        """What `Deps` fields are filled from (see `shared.wiring`)."""
        providers: dict[Any, Callable[[Opened], Any]] = {
            Redis: lambda opened: opened.redis,
            KafkaBroker: lambda _opened: self.broker,
        }
        if self.model is not None and self.model_port is not None:
            providers[self.model_port] = lambda opened: opened.model
        for kind, make in self.provides.items():
            providers[kind] = _once(make)
        return wiring.Sources(
            service=self.name,
            settings=self.settings,
            publishers=self.publishers,
            providers=providers,
            ttl_s=lambda: self.settings.session_ttl_s,
            redis=lambda opened: opened.redis,
        )

    def wired(self, deps: type | None = None, **overrides: Any) -> Callable[[Opened], Any]:
        """A builder of `deps` (default: the handlers' `Deps`), planned now: WiringError naming
        any field nothing fills."""
        if deps is None:
            deps = getattr(self.handlers, "Deps", None)
            if deps is None:
                raise wiring.WiringError(f"{self.name}: its handlers module has no Deps")
        fills = wiring.plan(deps, self.sources(), overrides)
        built = deps
        return lambda opened: wiring.build(built, fills, opened)

    def app(
        self,
        *,
        running: Callable[[Any], AbstractAsyncContextManager[None]] | None = None,
        **overrides: Any,
    ) -> AsgiFastStream:
        """The ASGI app; its lifespan builds the handlers' `Deps` (fields named in `overrides`
        take those values) and runs `running(deps)` alongside."""
        deps = self.build_deps = self.wired(**overrides)

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
                await self.adopt_offsets()  # the broker starts once this lifespan has entered
                async with self.pace.running(), running(built) if running else nullcontext():
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


def _once(make: Callable[[], Any]) -> Callable[[Opened], Any]:
    """A provider that makes its value on first use and hands the same one out after."""
    made: list[Any] = []

    def provide(_opened: Opened) -> Any:
        if not made:
            made.append(make())
        return made[0]

    return provide


def on_topics(names: list[str]) -> Callable[[Any], Any]:
    """A subscriber filter: the records of `names` (FastStream's `filter=`, which also
    skips a record another handler already took)."""
    wanted = frozenset(names)

    async def suits(message: Any) -> bool:
        return not message.processed and message.raw_message.topic in wanted

    return suits


def handler_name(event: type) -> str:
    """`ContextTrimmed` -> `on_context_trimmed`: the handler every consumer names that way."""
    return "on_" + re.sub(r"(?<!^)(?=[A-Z])", "_", event.__name__).lower()
