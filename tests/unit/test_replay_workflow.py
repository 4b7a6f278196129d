"""The in-process replay builds the workflow document the stack saves, and scores it as
`planwire eval` does (tests/support/replay.py, tests/support/replay_workflow.py)."""

from __future__ import annotations

import json
from pathlib import Path

from catalog import load_catalogue
from planwire.shape import node_id_of
from tests.support.replay import main, replay

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "eval" / "cases"
CATALOGUE = load_catalogue()


def played(name: str) -> dict:
    return replay(json.loads((SHARED / name).read_text()), CATALOGUE).workflow or {}


def test_a_confirmed_replay_holds_the_document_of_its_plan_with_the_users_values():
    document = played("support-triage.json")
    assert [node_id_of(n) for n in document["nodes"]] == ["zendesk", "sentiment", "jira"]
    assert document["trigger"] == {"kind": "event", "node": "zendesk", "event": "new_ticket"}
    assert document["edges"] == [
        {"from": "zendesk", "to": "sentiment"},
        {"from": "sentiment", "to": "jira"},
    ]
    jira = document["nodes"][2]
    # "If the ticket describes a bug, open an issue in Jira" is turn 10, and cited as such.
    assert jira["config"]["issue_type"] == "Bug" and jira["sources"] == {"issue_type": [10]}


def test_a_detail_older_than_the_steps_window_is_recalled_into_the_config():
    # 45 turns: "Mark urgent items with a red label" (turn 12) is long out of the last 30
    # messages a step sees, and still in the Gmail step's config, cited to that turn; the
    # column order the user listed in turn 34 is the Airtable step's fields, in their order.
    nodes = {n["id"]: n for n in played("early-mention-long.json")["nodes"]}
    assert nodes["gmail"]["config"]["label"] == "red"
    assert nodes["gmail"]["sources"]["label"] == [12]
    assert nodes["airtable"]["config"]["fields"] == ["date", "vendor", "amount", "status"]
    assert nodes["airtable"]["sources"]["fields"] == [34]


def test_an_unconfirmed_replay_has_no_document():
    case = {"id": "x", "turns": ["Hello there."], "confirm": "no", "expect": {}}
    assert replay(case, CATALOGUE).workflow is None


def test_the_replay_command_prints_what_planwire_eval_prints(tmp_path, capsys):
    case = json.loads((SHARED / "support-triage.json").read_text())
    case["expect"] |= {"trigger": "zendesk", "values": {"jira": ["bug", "ENG"]}}
    path, report = tmp_path / "case.json", tmp_path / "report.json"
    path.write_text(json.dumps(case))
    assert main([str(path), "--report", str(report)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert (
        lines[0].startswith("FAIL support-triage")
        and "shape=[\"jira config lacks 'ENG'\"]" in lines[0]
    )
    assert lines[-2:] == [
        "shape checks: 2/3 passed; cases fully right: 0/1; stated values in the confirmation: 1/2",
        "eval: 0/1 passed, recall 1.00, precision 1.00, forbidden 0, extra 0, shape 1, prompt_tokens 0",
    ]
    assert json.loads(report.read_text())["cases"][0]["workflow"]["nodes"][2]["id"] == "jira"
