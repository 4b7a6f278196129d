"""The kinds of step a plan has, one module each: node kind -> its `produce`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from services.specialist.kinds import compose, config, draft, save, summarize
from services.specialist.step import Deps, Step

Produce = Callable[[Step, Deps], Awaitable[tuple[str, dict[str, Any]]]]

PRODUCERS: dict[str, Produce] = {
    "specialist": draft.produce,
    "config": config.produce,
    "composer": compose.produce,
    "save": save.produce,
    "summarizer": summarize.produce,
}
