"""A handler's `deps=Context()` is resolved on the event loop, not on a worker thread."""

from __future__ import annotations

import inspect

from faststream import Context

from services.gateway import handlers as gateway
from services.trimmer import handlers as trimmer
from shared.handling import LoopContext, handles


def test_handles_gives_faststream_a_context_it_awaits():
    # fast_depends runs a custom field's plain `use` through anyio.to_thread, once a message.
    @handles("test", claim=False)
    async def on_thing(event: object, deps: object = Context("other", default=None)) -> None:
        return None

    found = inspect.signature(on_thing).parameters["deps"].default
    assert isinstance(found, LoopContext) and inspect.iscoroutinefunction(found.use)
    assert (found.name, found.default) == ("other", None)  # the same lookup as declared


def test_the_services_handlers_are_wrapped_that_way():
    for handler, name in (
        (trimmer.on_turn_received, "deps"),
        (gateway.on_reply_generated, "store"),
    ):
        assert isinstance(inspect.signature(handler).parameters[name].default, LoopContext)
