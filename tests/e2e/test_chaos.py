"""The CI-sized `planwire chaos` runs: 8 sessions while every service is SIGKILLed 3 times
and Valkey once (issue 11); a few sessions with two processes of every model-calling service,
each killed (issue 32). Nothing may be lost, doubled or changed."""

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
    r"kills (\d+), dlq (\d+), replicas (\d+), every service killed (\d+)\+ times, "
    r"valkey (\d+)$"
)
MODEL_SERVICES = ["indexer", "annotator", "conversation", "classifier", "planner", "specialist"]


def chaos(*args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """`planwire chaos ARGS` to its end; its output lines."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "planwire", "chaos", *args]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done, done.stdout.strip().splitlines()


def killed_parts(lines: list[str]) -> list[str]:
    """The part named by each `  12.3s kill <part> (back in ...)` line, in order."""
    found = (re.match(r"^\s*[\d.]+s kill (\S+) \(back in", line) for line in lines)
    return [m.group(1) for m in found if m]


def test_eight_sessions_survive_every_service_being_killed_three_times():
    done, lines = chaos("--sessions", "8", "--seed", "11")
    completed, started, lost, duplicated, differing, kills, _dlq, replicas, fewest, valkey = map(
        int, LAST.match(lines[-1]).groups()
    )
    assert (completed, started, lost, duplicated, differing) == (8, 8, 0, 0, 0)
    assert (replicas, fewest, valkey) == (1, 3, 1)
    killed = killed_parts(lines)
    services = {"gateway", "trimmer", "indexer", "annotator", "conversation", "classifier"}
    services |= {"planner", "dispatcher", "specialist"}
    assert all(killed.count(s) >= 3 for s in services) and "valkey" in killed
    assert kills == len(killed) >= 28
    steps = re.search(r"steps executed more than once: 0 of (\d+)", done.stdout)
    assert steps and int(steps.group(1)) >= 8 * 4  # every session's steps were checked


def test_two_processes_of_each_model_service_are_each_killed_and_nothing_is_lost_or_doubled():
    done, lines = chaos(
        "--sessions", "4", "--seed", "11", "--replicas", "2", "--kills-per-service", "1"
    )
    completed, started, lost, duplicated, differing, kills, _dlq, replicas, fewest, valkey = map(
        int, LAST.match(lines[-1]).groups()
    )
    assert (completed, started, lost, duplicated, differing) == (4, 4, 0, 0, 0)
    replicas_2 = [f"{name}-2" for name in MODEL_SERVICES]
    processes = next(line for line in lines if line.startswith("service processes:"))
    assert all(name in processes.split(": ")[1].split(", ") for name in replicas_2)
    killed = killed_parts(lines)
    assert all(killed.count(name) == 1 for name in [*MODEL_SERVICES, *replicas_2])
    # gateway, trimmer, dispatcher and two of each of the six, once each; Valkey once.
    assert (replicas, fewest, valkey) == (2, 1, 1) and kills == len(killed) == 15 + 1
    assert "broker: tansu is not killed, it would lose every topic" in done.stdout
