"""A stop that hangs is cut at its deadline: the process exits, says where it hung, and
takes its children with it (planwire/procs.py `stop_within`)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from planwire.procs import pid_alive

ROOT = Path(__file__).resolve().parents[2]

HANGS = textwrap.dedent(
    """
    import subprocess, sys, threading, time
    from planwire.procs import stop_within
    child = subprocess.Popen(["sleep", "120"], start_new_session=True)
    print(child.pid, flush=True)
    stop_within(1.0)
    threading.Event().wait()  # a stop that never returns
    """
)


def test_a_hung_stop_exits_at_its_deadline_and_takes_its_children():
    started = time.monotonic()
    run = subprocess.Popen(
        [sys.executable, "-c", HANGS],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    child = int(run.stdout.readline())
    _out, err = run.communicate(timeout=30)
    assert run.returncode == 130
    assert time.monotonic() - started < 30
    assert "stopping took over 1 s" in err
    assert "threading.py" in err or "<string>" in err  # the stacks of where it hung
    deadline = time.monotonic() + 5
    while pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(child)


def test_a_stop_that_finishes_in_time_exits_as_it_chose():
    run = subprocess.run(
        [sys.executable, "-c", "from planwire.procs import stop_within\nstop_within(5.0)\n"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (run.returncode, run.stderr) == (0, "")
