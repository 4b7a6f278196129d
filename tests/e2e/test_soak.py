"""The CI-sized `planwire soak`: a quick ramp, half a minute at half its saturation, RSS of
every process sampled; no turn lost, no error (issue 32)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[1].parent
LAST = re.compile(
    r"^soak: 0\.5 min, (\d+) turns, lost (\d+), errors (\d+), rss growth max (-?[\d.]+)% "
    r"\((\S+)\); data holders tansu [+-][\d.]+%, valkey [+-][\d.]+%$"
)
PROCESSES = {"tansu", "valkey", "gateway", "trimmer", "indexer", "annotator", "conversation"}
PROCESSES |= {"classifier", "planner", "dispatcher", "specialist", "lag"}


def test_half_a_minute_at_half_the_ramps_saturation_loses_nothing(tmp_path):
    report = tmp_path / "soak.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "planwire", "soak", "--minutes", "0.5", "--sample-s", "5"]
    argv += ["--ramp-step-s", "5", "--json", str(report)]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    turns, lost, errors, _most, _who = LAST.match(done.stdout.strip().splitlines()[-1]).groups()
    figures = json.loads(report.read_text())
    assert int(turns) == figures["turns"] > 0 and int(lost) == figures["lost"] == 0
    assert int(errors) == 0 and figures["errors"] == {} and figures["sessions_completed"] > 0
    assert figures["achieved_turns_per_s"] == round(figures["turns"] / 30, 2)
    # The rate is half the best ramp step's, and the output says where it came from.
    best = max(step["turns_per_s"] for step in figures["ramp"])
    assert figures["rate_turns_per_s"] == round(best / 2, 2)
    assert figures["rate_source"].startswith(f"half of {best} turns/s")
    # Every process sampled from start to end, its growth from a sixth of the run (5 s).
    assert len(figures["samples"]) >= 6 and figures["baseline_s"] == 5.0
    assert all(set(s["rss_mb"]) == PROCESSES for s in figures["samples"])
    assert set(figures["growth"]) == PROCESSES and figures["holders"] == ["tansu", "valkey"]
    assert [s["turns"] for s in figures["samples"]] == sorted(
        s["turns"] for s in figures["samples"]
    )
