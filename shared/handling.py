"""The scope every subscriber runs in: one decorator instead of code pasted into handlers.

`@handles("planner")` on a handler `(event, deps=Context())`:
- binds the event's session, so the model port charges its calls to it;
- claims the event id (`shared.idempotency.claim`: a renewed lease while it runs, "done"
  once it returned) unless `claim=False`, or only when `claim(event)` is true for handlers
  that act on some events; the "claimed:<Event>" crash point (`shared.faults`) sits right
  before the handler's body, after the claim when there is one (a handler that needs no
  claim is killed at the same moment: taken, nothing done yet);
- times it (`planwire_handler_seconds`) and counts it when it completes
  (`planwire_events_handled_total`).
The service kit refuses to subscribe a handler without it. A claiming handler's `deps` extend
`HandlerDeps`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from faststream._internal.context import Context  # the class; faststream.Context makes one
from redis.asyncio import Redis

from shared.faults import crash_point
from shared.idempotency import LEASE_S
from shared.idempotency import claim as claim_event
from shared.metrics import EVENTS_HANDLED, HANDLER_SECONDS
from shared.scope import bound_session

Handler = Callable[..., Awaitable[None]]
Claim = bool | Callable[[Any], bool]


@dataclass(kw_only=True)
class HandlerDeps:
    """What the scope needs from a service's `Deps` (which extend this) to claim events."""

    redis: Redis
    dedupe_ttl_s: int
    claim_lease_s: float = LEASE_S  # the kit sets it from the settings (shared/service.py)


class LoopContext(Context):
    """FastStream's `Context()`, resolved on the event loop.

    fast_depends runs a custom field's plain `use` through `anyio.to_thread.run_sync`, so a
    handler's `deps=Context()` cost a worker-thread round trip on every message (seen in
    py-spy profiles of the trimmer and the gateway); a coroutine `use` is awaited in place.
    """

    async def use(self, /, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().use(**kwargs)


def on_loop(parameter: inspect.Parameter) -> inspect.Parameter:
    """The parameter with a `Context()` default replaced by an equal `LoopContext`."""
    found = parameter.default
    if type(found) is not Context:
        return parameter
    return parameter.replace(
        default=LoopContext(
            found.name,
            default=found.default,
            initial=found.initial,
            cast=found.cast,
            prefix=found.prefix,
        )
    )


def handles(service: str, *, claim: Claim = True) -> Callable[[Handler], Handler]:
    """Wrap a handler of `service` in the subscriber scope (see the module docstring)."""

    def wrap(handler: Handler) -> Handler:
        signature = inspect.signature(handler)

        @functools.wraps(handler)
        async def scoped(*args: Any, **kwargs: Any) -> None:
            bound = signature.bind(*args, **kwargs)
            event = next(iter(bound.arguments.values()))
            name = type(event).__name__
            with (
                bound_session(event.session_id, str(event.event_id)),
                HANDLER_SECONDS.labels(service, name).time(),
            ):
                if claim is True or (callable(claim) and claim(event)):
                    deps = bound.arguments["deps"]
                    async with claim_event(
                        deps.redis,
                        service,
                        event.session_id,
                        str(event.event_id),
                        deps.dedupe_ttl_s,
                        deps.claim_lease_s,
                    ):
                        crash_point("claimed", name)
                        await handler(*args, **kwargs)
                else:
                    crash_point("claimed", name)
                    await handler(*args, **kwargs)
            EVENTS_HANDLED.labels(service, name).inc()

        scoped.service = service  # type: ignore[attr-defined]  # what the kit checks for
        # FastStream reads the parameters from here (annotations still resolve in the handler's
        # module: fast_depends unwraps to it for globals).
        scoped.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[on_loop(p) for p in signature.parameters.values()]
        )
        return scoped

    return wrap


def is_scoped(handler: Callable[..., Any]) -> bool:
    """True for a handler wrapped by `handles`."""
    return hasattr(handler, "service")
