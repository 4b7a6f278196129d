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
    r"^eval: (\d+)/(\d+) passed, recall (\d\.\d\d), precision (\d\.\d\d), forbidden (\d+), extra (\d+), shape (\d+), prompt_tokens (\d+)$"
)
SHAPE_LINE = re.compile(
    r"^shape checks: (\d+)/(\d+) passed; cases fully right: (\d+)/(\d+); "
    r"stated values in the confirmation: (\d+)/(\d+)$"
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
        :7
    ] == ("1", "1", "1.00", "1.00", "0", "0", "0")
    assert SHAPE_LINE.match(lines[-2])
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
        "shape",
        "workflow",
        "confirmation",
        "unconfirmed",
    } <= set(case)
    assert case["passed"] and {"zendesk", "jira", "sentiment"} <= set(case["plan"])
    # The saved document as the gateway serves it, one node per planned app.
    assert case["workflow"]["format"].startswith("planwire.workflow/")
    assert [n.get("app") or n["specialist"] for n in case["workflow"]["nodes"]] == case["plan"]
    assert data["summary"] | {"prompt_tokens": 0, "completion_tokens": 0} == {
        "cases": 1,
        "passed": 1,
        "recall": 1.0,
        "precision": 1.0,
        "forbidden": 0,
        "extra": 0,
        "shape": 0,
        "shape_checks": 0,
        "shape_cases": 0,
        "shape_cases_passed": 0,
        "values_stated": 0,
        "values_unconfirmed": 0,
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
    assert LAST_LINE.match(lines[-1]).groups()[:7] == ("0", "1", "1.00", "0.50", "1", "0", "0")


# The right apps, wired from the event the user named: a case expecting another trigger and a
# channel nobody said fails on the saved document alone, and says so.
WRONG_SHAPE = {
    "id": "wrong-shape",
    "title": "A case whose trigger and a value the conversation contradicts",
    "turns": [
        "When a Stripe payment succeeds, post a note to Slack in #payments.",
        "That's everything, please confirm.",
    ],
    "confirm": "Yes, build it.",
    "expect": {
        "integrations": ["stripe", "slack"],
        "tools": [],
        "absent": [],
        "trigger": "slack",
        "order": [["stripe", "slack"]],
        "values": {"slack": ["#payments", "#refunds"]},
    },
}


def test_eval_fails_a_case_on_the_shape_of_the_saved_workflow(stack, tmp_path):
    wrong = tmp_path / "wrong-shape.json"
    wrong.write_text(json.dumps(WRONG_SHAPE))
    report = tmp_path / "report.json"
    done = run_eval(stack.gateway_url, wrong, report=report)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    errors = ["trigger is stripe, expected slack", "slack config lacks '#refunds'"]
    assert lines[0].startswith("FAIL wrong-shape") and f"shape={errors}" in lines[0]
    assert SHAPE_LINE.match(lines[-2]).groups()[:4] == ("2", "4", "0", "1")
    # The confirmation the user saw and the stated values it did not show are in the report.
    assert LAST_LINE.match(lines[-1]).groups()[:7] == ("0", "1", "1.00", "1.00", "0", "0", "2")
    case = json.loads(report.read_text())["cases"][0]
    assert case["shape"] == errors and case["workflow"]["trigger"]["node"] is not None
    assert "Shall I build it?" in case["confirmation"]
    assert set(case["unconfirmed"]) <= {"#payments", "#refunds"}


# "over teams" is ambiguous to the rules ("teams" needs product context); a model may settle
# it, but only with the user's own words as evidence.
MODEL_SETTLES = {
    "id": "model-settles",
    "title": "An item only a model's judgement reads, with evidence",
    "turns": [
        "When a Stripe payment fails, notify everyone over teams.",
        "That's everything, please confirm.",
    ],
    "confirm": "Yes, build it.",
    "expect": {"integrations": ["stripe", "microsoft_teams"], "tools": [], "absent": []},
}


# The rules place steps as the user told them (the tone check first); "translate it ...
# first" says data reaches the tone check through the translator. A model may say so, with
# the user's words; the liar's claims about the flow are quotes nobody wrote.
MODEL_ORDERS = {
    "id": "model-orders",
    "title": "An order only a model's judgement reads: translate before the tone check",
    "turns": [
        "When a customer leaves a review on our Shopify store, check the tone of it.",
        "Translate it to English first, then post it in #support on Slack.",
        "That's everything, please confirm.",
    ],
    "confirm": "Yes, build it.",
    "expect": {
        "integrations": ["shopify", "slack"],
        "tools": ["sentiment", "translator"],
        "absent": [],
        "trigger": "shopify",
        "order": [["translator", "sentiment"], ["sentiment", "slack"]],
        "values": {"slack": ["#support"], "translator": ["en"]},
    },
}


def run_scripted(kind: str, *paths: Path, report: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "planwire", "eval", *map(str, paths)]
    argv += ["--report", str(report), "--scripted", kind]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)


def shapes(report: Path) -> dict[str, list[str]]:
    return {c["id"]: c["shape"] for c in json.loads(report.read_text())["cases"]}


def plans(report: Path) -> dict[str, list[str]]:
    return {c["id"]: sorted(c["plan"]) for c in json.loads(report.read_text())["cases"]}


def test_scripted_models_through_the_real_annotator(stack, tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "model-settles.json").write_text(json.dumps(MODEL_SETTLES))
    (cases / "model-orders.json").write_text(json.dumps(MODEL_ORDERS))
    for name in ("support-triage.json", "invoice-digest.json"):
        (cases / name).write_text((CASES_DIR / name).read_text())
    rules = run_eval(stack.gateway_url, cases, report=tmp_path / "rules.json")
    assert "FAIL model-settles" in rules.stdout, rules.stdout + rules.stderr
    assert "microsoft_teams" not in plans(tmp_path / "rules.json")["model-settles"]
    assert shapes(tmp_path / "rules.json")["model-orders"] == ["no path translator -> sentiment"]

    oracle = run_scripted("oracle", cases, report=tmp_path / "oracle.json")
    assert oracle.returncode == 0, oracle.stdout + oracle.stderr
    assert "eval: 4/4 passed" in oracle.stdout.splitlines()[-1]
    assert "microsoft_teams" in plans(tmp_path / "oracle.json")["model-settles"]

    liar = run_scripted("liar", cases, report=tmp_path / "liar.json")
    assert plans(tmp_path / "liar.json") == plans(tmp_path / "rules.json"), liar.stdout
    assert shapes(tmp_path / "liar.json") == shapes(tmp_path / "rules.json"), liar.stdout
