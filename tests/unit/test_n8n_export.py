"""A workflow document as n8n workflow JSON (catalog/n8n/export.py): what a person sees
after `n8n import:workflow` - the nodes, their settings, the notes, the wiring."""

from __future__ import annotations

import copy

from catalog.n8n.export import to_n8n
from catalog.n8n.facts import load_facts, mappings
from catalog.operations import load_operations

SCHEDULED = {
    "format": "planwire.workflow/v2",
    "workflow_id": "wf-00000000000000000001",
    "title": "Stripe → Slack",
    "trigger": {"kind": "schedule", "node": "scheduler", "event": "schedule"},
    "schedule": {"cron": "0 9 * * 1", "timezone": "Europe/Berlin"},
    "nodes": [
        {"id": "scheduler", "app": "scheduler", "kind": "tool", "role": "trigger",
         "operation": "schedule", "config": {"cron": "0 9 * * 1", "timezone": "Europe/Berlin"}},
        {"id": "stripe", "app": "stripe", "kind": "integration", "role": "source",
         "operation": "list_charges", "config": {"limit": 50}},
        {"id": "slack", "app": "slack", "kind": "integration", "role": "action",
         "operation": "post_message",
         "config": {"channel": "#finance", "message_template": "Total: {total}"}},
    ],
    "edges": [{"from": "scheduler", "to": "stripe"}, {"from": "stripe", "to": "slack"}],
}  # fmt: skip
EVENT = {
    "format": "planwire.workflow/v2",
    "workflow_id": "wf-00000000000000000002",
    "title": "Shopify → Slack",
    "trigger": {"kind": "event", "node": "shopify", "event": "new_order"},
    "schedule": None,
    "nodes": [
        {"id": "shopify", "app": "shopify", "kind": "integration", "role": "trigger",
         "operation": "new_order", "config": {"store": "store to be chosen"}},
        {"id": "condition-1", "app": None, "kind": "condition", "role": "condition",
         "operation": "filter", "config": {"field": "total_price", "operator": "greater_than",
                                           "value": "150", "quote": "orders over 150"}},
        {"id": "slack", "app": "slack", "kind": "integration", "role": "action",
         "operation": "post_message", "config": {"channel": "#sales", "message_template": "{summary}"}},
    ],
    "edges": [{"from": "shopify", "to": "condition-1"}, {"from": "condition-1", "to": "slack"}],
}  # fmt: skip


def by_name(workflow: dict) -> dict:
    return {node["name"]: node for node in workflow["nodes"]}


def targets(workflow: dict, source: str) -> list[str]:
    return [link["node"] for link in workflow["connections"][source]["main"][0]]


def test_a_scheduled_workflow_starts_on_n8ns_schedule_trigger_with_the_cron_and_zone():
    workflow = to_n8n(SCHEDULED)
    nodes = by_name(workflow)
    assert list(nodes) == [
        "Scheduler: On a schedule",
        "Stripe: Read charges",
        "Slack: Post a message to a channel",
    ]
    start = nodes["Scheduler: On a schedule"]
    assert start["type"] == "n8n-nodes-base.scheduleTrigger"
    assert start["parameters"]["rule"] == {
        "interval": [{"field": "cronExpression", "expression": "0 9 * * 1"}]
    }
    assert workflow["settings"]["timezone"] == "Europe/Berlin"
    assert targets(workflow, "Scheduler: On a schedule") == ["Stripe: Read charges"]
    assert targets(workflow, "Stripe: Read charges") == ["Slack: Post a message to a channel"]
    assert [n["position"][0] for n in workflow["nodes"]] == sorted(
        {n["position"][0] for n in workflow["nodes"]}
    )


def test_values_land_in_the_n8n_parameters_and_placeholders_read_the_step_before():
    nodes = by_name(to_n8n(SCHEDULED))
    charges = nodes["Stripe: Read charges"]["parameters"]
    assert charges == {"resource": "charge", "operation": "getAll", "limit": 50}
    slack = nodes["Slack: Post a message to a channel"]
    assert slack["parameters"]["channelId"] == {"__rl": True, "mode": "name", "value": "#finance"}
    assert slack["parameters"]["text"] == "=Total: {{ $json.total }}"
    assert "{total}" in slack["notes"]
    assert "credentials" not in slack and "Connect an account" in slack["notes"]


def test_an_event_workflow_starts_on_the_apps_trigger_and_a_condition_is_a_filter_node():
    workflow = to_n8n(EVENT)
    nodes = by_name(workflow)
    shopify = nodes["Shopify: New order"]
    assert shopify["type"] == "n8n-nodes-base.shopifyTrigger"
    assert shopify["parameters"] == {"topic": "orders/create"}
    assert "To fill in: store" in shopify["notes"]
    condition = nodes["Filter: total_price greater than 150"]
    assert condition["type"] == "n8n-nodes-base.filter"
    filtered = condition["parameters"]["conditions"]
    assert filtered["conditions"][0]["leftValue"] == "={{ $json.total_price }}"
    assert filtered["conditions"][0]["rightValue"] == 150
    assert filtered["conditions"][0]["operator"] == {"type": "number", "operation": "gt"}
    assert filtered["combinator"] == "and" and filtered["options"]["version"] == 2
    assert "orders over 150" in condition["notes"]
    assert targets(workflow, "Shopify: New order") == ["Filter: total_price greater than 150"]
    assert targets(workflow, "Filter: total_price greater than 150") == [
        "Slack: Post a message to a channel"
    ]


def test_a_condition_n8n_cannot_compare_is_left_in_the_notes():
    document = copy.deepcopy(EVENT)
    document["nodes"][1]["config"].update(operator="at_least", value="high")
    condition = by_name(to_n8n(document))["Filter: total_price at least high"]
    assert condition["parameters"]["conditions"]["conditions"] == []
    assert "Set the condition by hand: total_price at least high" in condition["notes"]


def test_a_workflow_without_a_trigger_starts_on_n8ns_manual_trigger():
    document = copy.deepcopy(SCHEDULED)
    document["trigger"] = {"kind": "manual", "node": None, "event": None}
    document["nodes"], document["edges"] = document["nodes"][1:], document["edges"][1:]
    document["schedule"] = None
    workflow = to_n8n(document)
    first = workflow["nodes"][0]
    assert first["type"] == "n8n-nodes-base.manualTrigger"
    assert targets(workflow, first["name"]) == ["Stripe: Read charges"]
    assert "timezone" not in workflow["settings"]


def test_an_event_n8n_can_only_poll_runs_under_a_schedule_trigger():
    document = {
        "workflow_id": "wf-00000000000000000003",
        "trigger": {"kind": "event", "node": "dropbox", "event": "new_file"},
        "nodes": [{"id": "dropbox", "app": "dropbox", "kind": "integration", "role": "trigger",
                   "operation": "new_file", "config": {"folder": "/invoices"}}],
        "edges": [],
    }  # fmt: skip
    workflow = to_n8n(document)
    start, dropbox = workflow["nodes"]
    assert start["type"] == "n8n-nodes-base.scheduleTrigger"
    assert dropbox["type"] == "n8n-nodes-base.dropbox"
    assert dropbox["parameters"]["path"] == "/invoices"
    assert targets(workflow, start["name"]) == [dropbox["name"]]


def test_an_event_in_the_middle_of_a_run_becomes_a_placeholder_that_says_what_to_do():
    document = copy.deepcopy(SCHEDULED)
    document["nodes"][1] = {"id": "gmail", "app": "gmail", "kind": "integration",
                            "role": "source", "operation": "new_email",
                            "config": {"query": "invoice"}}  # fmt: skip
    document["edges"] = [{"from": "scheduler", "to": "gmail"}, {"from": "gmail", "to": "slack"}]
    gmail = by_name(to_n8n(document))["Gmail: New email matching a search"]
    assert gmail["type"] == "n8n-nodes-base.noOp"
    assert "gmailTrigger" in gmail["notes"] and "query = invoice" in gmail["notes"]


def test_a_v1_document_exports_each_apps_default_event_and_action():
    document = {
        "format": "planwire.workflow/v1",
        "workflow_id": "wf-00000000000000000004",
        "title": "Gmail → Slack",
        "nodes": [
            {"id": "gmail", "specialist": "gmail", "kind": "integration", "role": "trigger",
             "config": {"query": "has:attachment"}},
            {"id": "slack", "specialist": "slack", "kind": "integration", "role": "action",
             "config": {"channel": "#inbox"}},
        ],
        "edges": [{"from": "gmail", "to": "slack"}],
    }  # fmt: skip
    workflow = to_n8n(document)
    gmail, slack = workflow["nodes"]
    assert (gmail["name"], gmail["type"]) == (
        "Gmail: New email matching a search",
        "n8n-nodes-base.gmailTrigger",
    )
    assert gmail["parameters"]["filters"] == {"q": "has:attachment"}
    assert (slack["type"], slack["parameters"]["operation"]) == ("n8n-nodes-base.slack", "post")
    assert targets(workflow, gmail["name"]) == [slack["name"]]


def test_node_ids_are_stable_per_workflow_and_names_unique():
    first, again = to_n8n(SCHEDULED), to_n8n(copy.deepcopy(SCHEDULED))
    assert first == again
    other = copy.deepcopy(SCHEDULED) | {"workflow_id": "wf-00000000000000000009"}
    assert {n["id"] for n in to_n8n(other)["nodes"]}.isdisjoint({n["id"] for n in first["nodes"]})
    twice = copy.deepcopy(EVENT)
    twice["nodes"].append({**twice["nodes"][2], "id": "slack-2"})
    twice["edges"].append({"from": "slack", "to": "slack-2"})
    names = [n["name"] for n in to_n8n(twice)["nodes"]]
    assert len(set(names)) == len(names)
    assert "Slack: Post a message to a channel (2)" in names


def test_the_export_knows_the_n8n_node_of_every_operation():
    # A new operation needs its facts: python scripts/n8n_nodes.py PACKAGE --facts ...
    listed = {where for where, _kind, _mapping in mappings(load_operations())}
    assert set(load_facts()["operations"]) == listed
