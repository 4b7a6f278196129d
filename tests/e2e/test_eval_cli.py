"""`planwire eval` keeps the ../shared/eval/FORMAT.md contract: lines, last line, report, exit status."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.gathering import CASES_DIR

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
LAST_LINE = re.compile(
    r"^eval: (\d+)/(\d+) passed, recall (\d\.\d\d), precision (\d\.\d\d), forbidden (\d+), extra (\d+), prompt_tokens (\d+)$"
)
# Slack stays in the conversation, so a plan that honours the notes must contain it: the
# case forbids it on purpose, and the eval must say so and fail.
CONTRADICTED = {
    "id": "contradicted",
    "title": "A case whose expectation the conversation contradicts",
    "turns": [
        "When a Stripe payment succeeds, post a note to Slack.",
        "That's everything, please confirm.",
    ],
    "confirm": "Yes, build it.",
    "expect": {"integrations": ["stripe"], "tools": [], "absent": ["slack"]},
}


def run_eval(gateway_url: str, *paths: Path, report: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [
        sys.executable,
        "-m",
        "planwire",
        "eval",
        *map(str, paths),
        "--report",
        str(report),
        "--gateway",
        gateway_url,
    ]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_eval_passes_a_shared_case_and_reports_it(stack, tmp_path):
    report = tmp_path / "report.json"
    done = run_eval(stack.gateway_url, CASES_DIR / "support-triage.json", report=report)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[0].startswith("PASS support-triage") and LAST_LINE.match(lines[-1]).groups()[
        :6
    ] == ("1", "1", "1.00", "1.00", "0", "0")
    data = json.loads(report.read_text())
    case = data["cases"][0]
    assert {
        "id",
        "passed",
        "missing",
        "forbidden",
        "extra",
        "turns",
        "prompt_tokens",
        "completion_tokens",
        "seconds",
        "plan",
    } <= set(case)
    assert case["passed"] and {"zendesk", "jira", "sentiment"} <= set(case["plan"])
    assert data["summary"] | {"prompt_tokens": 0, "completion_tokens": 0} == {
        "cases": 1,
        "passed": 1,
        "recall": 1.0,
        "precision": 1.0,
        "forbidden": 0,
        "extra": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "model": "heuristic",
    }


def test_eval_fails_with_exit_1_when_a_plan_holds_a_forbidden_id(stack, tmp_path):
    contradicted = tmp_path / "contradicted.json"
    contradicted.write_text(json.dumps(CONTRADICTED))
    done = run_eval(stack.gateway_url, contradicted, report=tmp_path / "report.json")
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert lines[0].startswith("FAIL contradicted") and "forbidden=['slack']" in lines[0]
    # stripe found, slack planned: recall 1/1, precision 1/2.
    assert LAST_LINE.match(lines[-1]).groups()[:6] == ("0", "1", "1.00", "0.50", "1", "0")
