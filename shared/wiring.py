"""Autowired dependencies: a handler module's `Deps` built from its fields' types and names.

The service kit (`shared.service.Service.app`) fills every field of `Deps` (a dataclass or
a pydantic model) from what the service has, in this order:

1. an explicit override passed by name (the odd dependency only one service has);
2. `Annotated[T, Setting("name")]`: the setting `name`;
3. `Publisher[E]`: the publisher the topology declares for the produced event `E`;
4. the field's type: one of the service's providers (Redis, broker, model port, catalogue, …),
   or a `RedisStore` subclass, built on the service's Redis with the session TTL;
5. the field's name, for a field no provided type fills: the setting of that name;
6. the field's default.

A field none of these fill, or whose type two providers match, fails when the app is built (at
start-up, before any connection opens) with an error naming the field.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from shared.redis import RedisStore

E_contra = TypeVar("E_contra", contravariant=True)
Context = TypeVar("Context")


class Publisher(Protocol[E_contra]):
    """A declared publisher of `E` events; a `Publisher[E]` field gets the one the topology declares."""

    async def publish(self, message: E_contra, /, *args: Any, **kwargs: Any) -> Any:
        """Publish one event."""


@dataclass(frozen=True)
class Setting:
    """`Annotated[float, Setting("ready_threshold")]`: a field filled from a setting of another name."""

    name: str


class WiringError(TypeError):
    """A `Deps` field the kit cannot fill, or could fill two ways."""


@dataclass(frozen=True)
class Field:
    """One field of a `Deps` type: its name, type, markers and whether it has a default."""

    name: str
    type: Any
    markers: tuple[Any, ...]
    has_default: bool


# A way to fill one field from what the running service holds (its `Opened` connections).
Fill = Callable[[Any], Any]


@dataclass(frozen=True, kw_only=True)
class Sources(Generic[Context]):
    """What a service can fill `Deps` fields from."""

    service: str
    settings: Any  # a pydantic-settings object
    publishers: Mapping[type, Any]  # produced event -> its declared publisher
    providers: Mapping[Any, Callable[[Context], Any]]  # type -> value, given the opened context
    ttl_s: Callable[[], int]  # the TTL a `RedisStore` field is built with
    redis: Callable[[Context], Any]  # the Redis a `RedisStore` field is built on


@dataclass(frozen=True)
class Built:
    """An override made once the service's connections are open: `make(opened)`, for a value
    that needs both them and something the kit cannot know (a store with an extra setting)."""

    make: Fill


def fields_of(deps: type) -> list[Field]:
    """The fields of a dataclass or pydantic model, with their resolved types."""
    try:
        hints = typing.get_type_hints(deps, include_extras=True)
    except NameError as error:
        raise WiringError(f"{deps.__qualname__}: cannot resolve a field's type ({error})") from None
    if dataclasses.is_dataclass(deps):
        return [
            Field(
                f.name,
                *_split(hints[f.name]),
                has_default=f.default is not dataclasses.MISSING
                or f.default_factory is not dataclasses.MISSING,
            )
            for f in dataclasses.fields(deps)
            if f.init
        ]
    if inspect.isclass(deps) and issubclass(deps, BaseModel):
        return [
            Field(name, *_split(hints[name]), has_default=not info.is_required())
            for name, info in deps.model_fields.items()
        ]
    raise WiringError(f"{deps!r} is neither a dataclass nor a pydantic model")


def _split(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    """`Annotated[T, m1, m2]` -> (T, (m1, m2)); anything else -> (hint, ())."""
    if typing.get_origin(hint) is typing.Annotated:
        base, *markers = typing.get_args(hint)
        return base, tuple(markers)
    return hint, ()


def plan(deps: type, sources: Sources[Any], overrides: Mapping[str, Any]) -> dict[str, Fill]:
    """How to fill each field of `deps`; WiringError naming the first field that cannot be filled."""
    fields = fields_of(deps)
    unknown = set(overrides) - {f.name for f in fields}
    if unknown:
        raise WiringError(
            f"{sources.service}: {deps.__qualname__} has no field {', '.join(sorted(unknown))} to override"
        )
    fills: dict[str, Fill] = {}
    for field in fields:
        where = f"{sources.service}: {deps.__module__}.{deps.__name__}.{field.name} ({_show(field.type)})"
        fill = _fill(field, sources, overrides, where)
        if fill is not None:
            fills[field.name] = fill
        elif not field.has_default:
            raise WiringError(
                f"{where}: nothing provides it (not an override, a declared publisher, a provided type, "
                "a RedisStore nor a setting of that name)"
            )
    return fills


def build(deps: type, fills: Mapping[str, Fill], context: Any) -> Any:
    """The `Deps` object, each planned field filled from `context` (the opened connections)."""
    return deps(**{name: fill(context) for name, fill in fills.items()})


def _fill(
    field: Field, sources: Sources[Any], overrides: Mapping[str, Any], where: str
) -> Fill | None:
    if field.name in overrides:
        value = overrides[field.name]
        if isinstance(value, Built):
            return value.make
        return lambda _context: value
    named = [m.name for m in field.markers if isinstance(m, Setting)]
    if named:
        return _setting(sources.settings, named[0], where)
    if typing.get_origin(field.type) is Publisher:
        return _publisher(field, sources, where)
    found: list[Fill] = [sources.providers[key] for key in _matching(field.type, sources.providers)]
    if inspect.isclass(field.type) and issubclass(field.type, RedisStore):
        store = field.type
        found.append(lambda context: store(sources.redis(context), sources.ttl_s()))
    if len(found) > 1:
        raise WiringError(
            f"{where}: ambiguous, {len(found)} provided types match it (name a narrower type "
            "or pass it by name)"
        )
    if found:
        return found[0]
    if field.name in type(sources.settings).model_fields:
        return _setting(sources.settings, field.name, where)
    return None


def _matching(wanted: Any, providers: Mapping[Any, Any]) -> list[Any]:
    """The provider keys for a field of type `wanted`: the exact type, else its subclasses."""
    if wanted in providers:
        return [wanted]
    if not inspect.isclass(wanted):
        return []
    return [k for k in providers if inspect.isclass(k) and _subclass(k, wanted)]


def _subclass(candidate: type, wanted: type) -> bool:
    try:
        return issubclass(candidate, wanted)
    except TypeError:  # a non-runtime Protocol
        return False


def _setting(settings: Any, name: str, where: str) -> Fill:
    if name not in type(settings).model_fields:
        raise WiringError(f"{where}: the settings have no {name!r}")
    return lambda _context: getattr(settings, name)


def _publisher(field: Field, sources: Sources[Any], where: str) -> Fill:
    (event,) = typing.get_args(field.type) or (None,)
    if event in sources.publishers:
        publisher = sources.publishers[event]
        return lambda _context: publisher
    matches = [e for e in sources.publishers if inspect.isclass(event) and issubclass(e, event)]
    if len(matches) == 1:
        publisher = sources.publishers[matches[0]]
        return lambda _context: publisher
    if matches:
        raise WiringError(
            f"{where}: ambiguous, the service produces {', '.join(sorted(e.__name__ for e in matches))}"
        )
    declared = ", ".join(sorted(e.__name__ for e in sources.publishers)) or "nothing"
    raise WiringError(
        f"{where}: the topology declares no such output (the service produces {declared})"
    )


def _show(hint: Any) -> str:
    if typing.get_origin(hint) is None and inspect.isclass(hint):
        return hint.__qualname__
    return str(hint).replace("shared.wiring.", "")
