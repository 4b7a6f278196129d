"""The session a handler is working on, visible to the code it calls (e.g. the model port).

Kept apart from `shared.model` so services without a model (the dispatcher) can bind it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_session: ContextVar[str | None] = ContextVar("planwire_session", default=None)


@contextmanager
def bound_session(session_id: str) -> Iterator[None]:
    """Work done inside this block (model calls) is charged to `session_id`."""
    token = _session.set(session_id)
    try:
        yield
    finally:
        _session.reset(token)


def current_session() -> str | None:
    """The session bound by the innermost `bound_session`, if any."""
    return _session.get()
