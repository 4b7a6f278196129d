"""The CI-sized `planwire chaos` run: 8 sessions while every service is SIGKILLed 3 times
and Valkey once; nothing may be lost, doubled or changed (issue 11)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[1].parent
LAST = re.compile(
    r"^chaos: (\d+)/(\d+) completed, lost (\d+), duplicated (\d+), differing (\d+), "
    r"kills (\d+), dlq (\d+)$"
)


def test_eight_sessions_survive_every_service_being_killed_three_times():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "planwire", "chaos", "--sessions", "8", "--seed", "11"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    completed, started, lost, duplicated, differing, kills, _dlq = map(
        int, LAST.match(lines[-1]).groups()
    )
    assert (completed, started, lost, duplicated, differing) == (8, 8, 0, 0, 0)
    killed = [re.search(r"kill (\S+)", line).group(1) for line in lines if " kill " in line]
    services = {"gateway", "trimmer", "indexer", "annotator", "conversation", "classifier"}
    services |= {"planner", "dispatcher", "specialist"}
    assert all(killed.count(s) >= 3 for s in services) and "valkey" in killed
    assert kills == len(killed) >= 28
    steps = re.search(r"steps executed more than once: 0 of (\d+)", done.stdout)
    assert steps and int(steps.group(1)) >= 8 * 4  # every session's steps were checked
