"""`planwire bench` on the real embedded stack, CI-sized: it runs and prints sane figures.

No timing thresholds here (speed targets live in the bench's output, docs/performance.md):
the test checks that the figures exist, are consistent with each other and with the
workload, and that "where the time goes" names the services a turn passes through.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


def test_bench_plays_concurrent_sessions_and_says_where_the_time_goes(tmp_path):
    out = tmp_path / "bench.json"
    argv = [sys.executable, "-m", "planwire", "bench", "--sessions", "1,3", "--turns", "2"]
    argv += ["--idle", "1", "--model", "heuristic", "--json", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    one, three = figures["loads"]
    assert (one["sessions"], one["turns"], three["sessions"], three["turns"]) == (1, 2, 3, 6)
    for load in (one, three):
        assert 0 < load["turn_p50_ms"] <= load["turn_p95_ms"] <= load["turn_p99_ms"]
        assert load["turns_per_s"] > 0 and load["cpu_ms_per_turn"] > 0
        # Every turn passes the trimmer, the annotator and the conversation once, and its
        # reply reaches the gateway; each of those handlers touches Redis.
        for hop in (
            "trimmer/TurnReceived",
            "annotator/ContextTrimmed",
            "conversation/NotesUpdated",
        ):
            assert load["handlers"][hop]["per_turn"] == 1.0, load["handlers"]
        assert load["handlers"]["gateway/ReplyGenerated"]["per_turn"] == 1.0
        assert load["redis_commands_per_turn"] >= 4
        assert {"gateway", "trimmer", "annotator", "conversation"} <= set(
            load["cpu_ms_per_turn_by_process"]
        )
    assert figures["broker_rtt_ms"] > 0 and figures["redis_rtt_ms"] > 0
    assert figures["turn_to_broker_rtt_ratio"] > 0
    assert figures["rss_mb"] > 0 and figures["idle_cpu_pct"] >= 0 and figures["start_s"] > 0
    for key in ("turn_p50_ms", "turn_p99_ms", "turns_per_s", "cpu_ms_per_turn", "idle_cpu_pct"):
        assert key in figures
    printed = done.stdout
    assert "sessions  turns  p50_ms" in printed and "where the time goes" in printed
    assert f"broker_rtt_ms: {figures['broker_rtt_ms']}" in printed
