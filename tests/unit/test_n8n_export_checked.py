"""Exports validate against n8n's own node descriptions (`n8n-nodes-base`, fetched once per
run by the `n8n_nodes_base` fixture): every fourth corpus case here, all of them in
tests/deploy/test_n8n_export_corpus.py; and the checker reports what n8n would refuse."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from catalog.n8n.descriptions import load_nodes
from catalog.n8n.export import to_n8n
from catalog.n8n.validate import workflow_problems
from tests.support.n8n_corpus import cases, every_operation, exported
from tests.unit.test_n8n_export import EVENT, SCHEDULED


@pytest.fixture(scope="module")
def nodes(n8n_nodes_base: Path):
    return load_nodes(n8n_nodes_base)


def test_every_fourth_corpus_workflow_exports_to_valid_n8n_json(nodes) -> None:
    sample = cases()[::4]
    built, failed = exported(sample, nodes)
    assert built >= len(sample) * 0.9, f"only {built} of {len(sample)} cases built a workflow"
    assert failed == {}


def test_every_operation_with_every_value_given_exports_to_valid_n8n_json(nodes) -> None:
    failed = {}
    for where, document in every_operation():
        if problems := workflow_problems(to_n8n(document), nodes):
            failed[where] = problems
    assert failed == {}


def test_the_documents_of_the_unit_tests_export_to_valid_n8n_json(nodes) -> None:
    assert workflow_problems(to_n8n(SCHEDULED), nodes) == []
    assert workflow_problems(to_n8n(EVENT), nodes) == []


def test_what_n8n_would_refuse_is_reported(nodes) -> None:
    workflow = copy.deepcopy(to_n8n(EVENT))
    shopify, condition, slack = workflow["nodes"]
    slack["parameters"]["channel"] = "#sales"  # no such parameter
    slack["parameters"]["channelId"]["mode"] = "handle"
    condition["parameters"]["conditions"]["conditions"][0]["operator"]["operation"] = "above"
    workflow["connections"][slack["name"]] = {
        "main": [
            [
                {"node": shopify["name"], "type": "main", "index": 0},
                {"node": "Nobody", "type": "main", "index": 0},
            ]
        ]
    }
    workflow["nodes"].append({**shopify, "name": "Another start", "id": "x"})
    problems = workflow_problems(workflow, nodes)
    assert any("'channel' is not defined" in p for p in problems)
    assert any("mode 'handle' is not one of" in p for p in problems)
    assert any("not in n8n's filter format" in p for p in problems)
    assert any("goes into a trigger" in p for p in problems)
    assert any("'Nobody'" in p and "is not to a node's input" in p for p in problems)
    assert any("2 trigger nodes" in p for p in problems)
    assert any("cycle" in p for p in problems)
