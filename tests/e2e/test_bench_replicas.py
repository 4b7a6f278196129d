"""`planwire bench --replicas`, CI-sized: a second stack with two annotator processes, under a
simulated model latency. No timing thresholds: it checks the replicas joined the annotator's
consumer group and shared the work, each turn annotated exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SESSIONS = 16  # one turn each: the chance that all land on one replica's partitions is 2^-15


def test_bench_replicas_spread_the_annotators_work(tmp_path):
    out = tmp_path / "bench.json"
    argv = [sys.executable, "-m", "planwire", "bench", "--sessions", str(SESSIONS)]
    argv += ["--turns", "1", "--idle", "0.5", "--model", "heuristic", "--json", str(out)]
    argv += ["--replicas", "annotator=2", "--model-latency-ms", "20"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert figures["model_latency_ms"] == 20.0
    scaled = figures["replicated"]
    assert scaled["replicas"] == {"annotator": 2}
    # One annotator process on the first stack, two on the second (one more process).
    assert scaled["processes"] == figures["processes"] + 1
    handled = scaled["handled_by_process"]
    assert set(handled) == {"annotator", "annotator-2"}, handled
    # Both members got partitions and took sessions; together they annotated every turn once.
    assert min(handled.values()) > 0, handled
    assert sum(handled.values()) == SESSIONS, handled
    assert scaled["turns_per_s"] > 0 and scaled["turns_per_s_ratio"] > 0
    assert "turns_per_s_ratio:" in done.stdout and "annotator-2" in done.stdout
