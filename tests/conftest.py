"""Test-wide setup: a terminated test run still stops every process it started."""

from __future__ import annotations

import atexit
import os
import signal


def _stop_and_exit(_signum: int, _frame: object) -> None:
    # Raising from a signal handler does not reliably unwind a running event loop, so
    # stop what the run started right here (every EmbeddedStack registered its stop() with
    # atexit) and leave at once, instead of orphaning brokers and services.
    atexit._run_exitfuncs()
    os._exit(143)


signal.signal(signal.SIGTERM, _stop_and_exit)
