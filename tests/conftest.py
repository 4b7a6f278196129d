"""Test-wide setup: a terminated test run still stops every process it started."""

from __future__ import annotations

import signal
import sys


def _exit_on_sigterm(_signum: int, _frame: object) -> None:
    # SystemExit unwinds fixtures and runs atexit hooks, so an embedded stack started by a
    # test is stopped instead of being orphaned when CI (or a person) kills the run.
    sys.exit(143)


signal.signal(signal.SIGTERM, _exit_on_sigterm)
