"""Crash points a test can arm: SIGKILL this process at a named moment, once.

Off unless `PLANWIRE_CRASH_AT` is set, so production never pays more than one lookup:
  PLANWIRE_CRASH_AT    comma-separated points, each "<moment>:<EventName>":
                       "claimed:RunStep"        after the handler claimed the event (or took
                                                it, when it needs no claim), before its body
                                                ran (between claim and publish);
                       "publish:StepCompleted"  just before a handler publishes that event,
                                                i.e. after its state change (between state
                                                change and publish).
  PLANWIRE_CRASH_ONCE  a path prefix: each point fires only if "<prefix>.<moment>.<Event>"
                       does not exist yet, and creates it first, so the restarted process
                       (same environment) runs through. Without it a point fires every time.
"""

from __future__ import annotations

import logging
import os
import signal
from typing import Any

from faststream import BaseMiddleware

log = logging.getLogger("planwire.faults")


def crash_point(moment: str, event: str) -> None:
    """SIGKILL this process if `moment:event` is armed (see the module docstring)."""
    armed = os.environ.get("PLANWIRE_CRASH_AT")
    if not armed or f"{moment}:{event}" not in armed.split(","):
        return
    if prefix := os.environ.get("PLANWIRE_CRASH_ONCE"):
        try:
            os.close(os.open(f"{prefix}.{moment}.{event}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
    log.warning("crash point %s:%s armed: SIGKILL", moment, event)
    for handler in logging.getLogger().handlers:
        handler.flush()
    os.kill(os.getpid(), signal.SIGKILL)


class CrashBeforePublish(BaseMiddleware):
    """Fires the "publish:<EventName>" crash point before a message leaves the process."""

    async def publish_scope(self, call_next: Any, cmd: Any) -> Any:
        crash_point("publish", type(cmd.body).__name__)
        return await call_next(cmd)
