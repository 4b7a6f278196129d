"""The session a handler is working on, visible to the code it calls (e.g. the model port).

Kept apart from `shared.model` so services without a model (the dispatcher) can bind it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_session: ContextVar[str | None] = ContextVar("planwire_session", default=None)
_event: ContextVar[str | None] = ContextVar("planwire_event", default=None)


@contextmanager
def bound_session(session_id: str, event_id: str | None = None) -> Iterator[None]:
    """Work done inside this block (model calls) is charged to `session_id`; logs name both."""
    token, event_token = _session.set(session_id), _event.set(event_id)
    try:
        yield
    finally:
        _event.reset(event_token)
        _session.reset(token)


def current_session() -> str | None:
    """The session bound by the innermost `bound_session`, if any."""
    return _session.get()


def current_event() -> str | None:
    """The id of the event being handled, if any (for logs)."""
    return _event.get()
