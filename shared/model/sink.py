"""Where a streamed reply's pieces go: a context variable the caller sets around one call.

Kept apart from `shared.model.streaming` so that the backends in `shared.model.port` can emit
without importing the wrappers built on them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar

Sink = Callable[[str], Awaitable[None]]
_SINK: ContextVar[Sink | None] = ContextVar("planwire_text_sink", default=None)


@contextlib.contextmanager
def streaming_to(target: Sink) -> Iterator[None]:
    """Send the `text` of the model calls made inside the block to `target`, piece by piece."""
    token = _SINK.set(target)
    try:
        yield
    finally:
        _SINK.reset(token)


def sink() -> Sink | None:
    """The sink of the call being made, if its caller streams it."""
    return _SINK.get()


async def emit(piece: str) -> None:
    """Hand a piece of the reply's text to the caller's sink (nothing without one)."""
    found = _SINK.get()
    if found is not None and piece:
        await found(piece)
