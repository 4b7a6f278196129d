"""`planwire eval --compare naive`: the same cases under both context policies, each on its
own embedded stack, with prompt tokens per session and recall side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.gathering import CASES_DIR

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
CASES = ("support-triage.json", "invoice-digest.json")


def test_compare_counts_prompt_tokens_under_both_policies(tmp_path):
    report = tmp_path / "compare.json"
    argv = [sys.executable, "-m", "planwire", "eval", "--compare", "naive"]
    argv += [*(str(CASES_DIR / name) for name in CASES), "--report", str(report)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PLANWIRE_CONTEXT_POLICY", None)
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1].startswith("compare: default recall 1.00, prompt_tokens/session ")
    assert sum(line.startswith("[default] PASS") for line in lines) == 2
    assert sum(line.startswith("[naive] PASS") for line in lines) == 2

    data = json.loads(report.read_text())
    summary = data["summary"]
    assert summary["default"]["recall"] == summary["naive"]["recall"] == 1.0
    for row in data["cases"]:
        # The heuristic backend charges the estimate, so both policies count real prompts.
        assert 0 < row["default_prompt_tokens"] < row["naive_prompt_tokens"], row
    # The annotator is given the whole history under naive, a bounded turn by default.
    roles = {p: summary[p]["prompt_tokens_by_role"] for p in ("default", "naive")}
    assert roles["default"]["annotator"] < roles["naive"]["annotator"], roles
    # Every role that calls the model was counted under both.
    assert {"annotator", "specialist", "composer", "summarizer"} <= set(roles["default"])
    assert set(roles["default"]) == set(roles["naive"])
