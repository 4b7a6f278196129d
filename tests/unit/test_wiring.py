"""The service kit builds each service's `Deps` from its fields, and refuses what it cannot fill."""

from __future__ import annotations

import dataclasses
import importlib
import typing
from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict
from redis.asyncio import Redis

from schemas.plan import WorkflowCompleted, WorkflowFailed
from schemas.topology import Node, Produces
from schemas.turn import NotesUpdated, ReplyGenerated
from shared.redis import RedisStore
from shared.service import Opened, Service
from shared.settings import InfraSettings
from shared.wiring import Publisher, Setting, WiringError

SERVICES = [
    "annotator",
    "classifier",
    "conversation",
    "dispatcher",
    "indexer",
    "planner",
    "trimmer",
]
SERVICES += ["specialist"]


class Settings(InfraSettings):
    budget: int = 7


class Store(RedisStore):
    pass


def service_for(*produced: type, settings: InfraSettings | None = None) -> Service:
    node = Node(
        name="example",
        description="an example",
        produces=tuple(Produces(e, e.__name__) for e in produced),
    )
    handlers = type("handlers", (), {})  # no consumers: nothing to subscribe
    return Service.declared(node, settings or Settings(), handlers=handlers)  # type: ignore[arg-type]


def opened() -> Opened:
    return Opened(redis=Redis(), model=None)


@dataclass(frozen=True, kw_only=True)
class Good:
    redis: Redis
    store: Store
    replies: Publisher[ReplyGenerated]
    budget: int
    cap: Annotated[int, Setting("partitions")]
    dedupe_ttl_s: int
    extra: str = "default"


def test_fields_are_filled_by_type_publisher_setting_and_name() -> None:
    service = service_for(ReplyGenerated, NotesUpdated)
    context = opened()
    deps = service.wired(Good)(context)
    assert deps.redis is context.redis
    assert isinstance(deps.store, Store) and deps.store.redis is context.redis
    assert deps.store.ttl_s == service.settings.session_ttl_s
    assert deps.replies is service.publisher_of(ReplyGenerated)
    assert deps.budget == 7 and deps.cap == service.settings.partitions
    assert deps.dedupe_ttl_s == service.settings.dedupe_ttl_s
    assert deps.extra == "default"


def test_an_override_wins_and_an_unknown_override_is_refused() -> None:
    service = service_for(ReplyGenerated)
    assert service.wired(Good, budget=99, extra="x")(opened()).budget == 99
    with pytest.raises(WiringError, match="no field nonsense to override"):
        service.wired(Good, nonsense=1)


def test_a_pydantic_model_is_filled_too() -> None:
    class Deps(BaseModel):
        model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
        redis: Redis
        budget: int

    deps = service_for().wired(Deps)(opened())
    assert deps.budget == 7 and isinstance(deps.redis, Redis)


def test_an_unknown_field_fails_at_start_up_naming_it() -> None:
    @dataclass(kw_only=True)
    class Deps:
        redis: Redis
        mystery_knob: float

    with pytest.raises(
        WiringError,
        match=r"example: \S*test_wiring\.Deps\.mystery_knob \(float\): nothing provides it",
    ):
        service_for().wired(Deps)


def test_a_publisher_of_an_event_the_service_does_not_produce_fails_naming_it() -> None:
    @dataclass(kw_only=True)
    class Deps:
        replies: Publisher[ReplyGenerated]

    with pytest.raises(WiringError, match=r"Deps\.replies .*produces NotesUpdated"):
        service_for(NotesUpdated).wired(Deps)


def test_an_ambiguous_publisher_fails_naming_the_field() -> None:
    @dataclass(kw_only=True)
    class Deps:
        ended: Publisher[Any]

    from schemas.envelope import Event

    @dataclass(kw_only=True)
    class ByBase:
        ended: Publisher[Event]

    with pytest.raises(WiringError, match=r"Deps\.ended"):
        service_for(WorkflowCompleted, WorkflowFailed).wired(Deps)
    with pytest.raises(
        WiringError, match=r"ByBase|ended.*ambiguous.*WorkflowCompleted, WorkflowFailed"
    ):
        service_for(WorkflowCompleted, WorkflowFailed).wired(ByBase)


def test_a_field_two_provided_types_match_is_ambiguous() -> None:
    @dataclass(kw_only=True)
    class Deps:
        thing: object

    with pytest.raises(WiringError, match=r"Deps\.thing \(object\): ambiguous"):
        service_for().wired(Deps)


def test_a_setting_marker_naming_no_setting_fails() -> None:
    @dataclass(kw_only=True)
    class Deps:
        budget: Annotated[int, Setting("no_such_setting")]

    with pytest.raises(WiringError, match=r"Deps\.budget.*no 'no_such_setting'"):
        service_for().wired(Deps)


@pytest.mark.parametrize("name", SERVICES)
def test_every_service_wires_every_field_of_its_deps(name: str) -> None:
    """Each service's `Deps`, built as its lifespan builds it: every field from the right source."""
    main = importlib.import_module(f"services.{name}.main")
    service: Service = main.service
    context = Opened(redis=Redis(), model=object())
    if service.build_deps is None:  # the step runtime builds its app for the runners it is given
        main.create_app(["save"])
    assert service.build_deps is not None
    deps = service.build_deps(context)
    hints = typing.get_type_hints(type(deps), include_extras=True)
    for field in dataclasses.fields(deps):
        value, hint = getattr(deps, field.name), hints[field.name]
        if typing.get_origin(hint) is Publisher:
            (event,) = typing.get_args(hint)
            assert value is service.publisher_of(event), field.name
        elif field.name == "redis":
            assert value is context.redis
        elif field.name == "model":
            assert value is context.model
        elif isinstance(value, RedisStore):
            assert value.redis is context.redis and value.ttl_s == service.settings.session_ttl_s
    assert deps.dedupe_ttl_s == service.settings.dedupe_ttl_s
