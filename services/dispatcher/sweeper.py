"""The timeout sweep: a periodic task inside the dispatcher over the global deadline set.

Every `interval_s` it claims the deadlines that are due (a lease in the sorted set, so two
dispatcher replicas never handle the same one) and hands each to the deadline handler,
which re-requests the step or fails the run. A step that completes removes its deadline;
stale entries are recognised against the run's state and dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator

from services.dispatcher.handlers import Deps, on_deadline

log = logging.getLogger("planwire.dispatcher.sweep")


async def sweep_once(deps: Deps, now_s: float, *, lease_s: float, batch: int) -> int:
    """Handle every deadline due at `now_s`; returns how many were claimed."""
    due = await deps.store.claim_due(now_s, lease_s, batch)
    for deadline in due:
        try:
            await on_deadline(deps, deadline)
        except Exception:
            log.exception("deadline %s failed; it will come due again", deadline.member())
    return len(due)


async def run_sweeper(deps: Deps, *, interval_s: float, lease_s: float, batch: int) -> None:
    """Sweep forever (until cancelled); a Redis hiccup costs one tick, not the task."""
    while True:
        try:
            await sweep_once(deps, time.time(), lease_s=lease_s, batch=batch)
        except Exception:
            log.exception("deadline sweep failed")
        await asyncio.sleep(interval_s)


@contextlib.asynccontextmanager
async def sweeping(
    deps: Deps, *, interval_s: float, lease_s: float, batch: int
) -> AsyncIterator[None]:
    """Run the sweep in the background while the block runs; stop it on the way out."""
    sweep = asyncio.create_task(
        run_sweeper(deps, interval_s=interval_s, lease_s=lease_s, batch=batch)
    )
    try:
        yield
    finally:
        sweep.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sweep
