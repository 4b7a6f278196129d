"""A saved workflow in words for the page: one card per step, in the confirmation's words."""

from __future__ import annotations

from catalog import load_catalogue
from catalog.operations import load_operations
from services.conversation import details
from services.gateway.steps import DICTATED, WORDING, workflow_steps

CATALOGUE, OPERATIONS = load_catalogue(), load_operations()

# "Every Friday read the sales figures from Google Sheets and post them in Slack #sales; if
# the total is over 5000 also email the director with Gmail.", as the stack saved it.
BRANCHED = {
    "format": "planwire.workflow/v2",
    "workflow_id": "wf-6e77aacda7765744bc3e",
    "title": "Scheduler → Google Sheets → Slack → Gmail",
    "trigger": {"kind": "schedule", "node": "scheduler", "event": "schedule"},
    "schedule": {"cron": "0 9 * * 5", "timezone": "UTC"},
    "nodes": [
        {"id": "scheduler", "app": "scheduler", "kind": "tool", "role": "trigger",
         "operation": "schedule", "config": {"cron": "0 9 * * 5"}},
        {"id": "google_sheets", "app": "google_sheets", "kind": "integration", "role": "source",
         "operation": "read_rows", "config": {"spreadsheet": "spreadsheet to be chosen"}},
        {"id": "slack", "app": "slack", "kind": "integration", "role": "action",
         "operation": "post_message",
         "config": {"channel": "#sales", "message_template": "{summary}"}},
        {"id": "condition-1", "app": None, "kind": "condition", "role": "condition",
         "operation": "filter", "config": {"field": "total", "operator": "greater_than",
         "value": "5000", "quote": "if the total is over 5000 also email the director"}},
        {"id": "gmail", "app": "gmail", "kind": "integration", "role": "action",
         "operation": "send_email", "config": {"to": "recipient to be chosen"}},
    ],
    "edges": [
        {"from": "scheduler", "to": "google_sheets"},
        {"from": "google_sheets", "to": "slack"},
        {"from": "google_sheets", "to": "condition-1"},
        {"from": "condition-1", "to": "gmail"},
    ],
}  # fmt: skip


def cards(document=BRANCHED):
    return {c.id: c for c in workflow_steps(document, CATALOGUE, OPERATIONS).steps}


def test_each_step_says_its_app_what_it_does_and_its_values():
    steps = cards()
    slack = steps["slack"]
    assert (slack.name, slack.does, slack.number) == ("Slack", "Post a message to a channel", 2)
    assert [(s.label, s.value) for s in slack.values] == [("channel", "#sales")]
    assert steps["scheduler"].role == "trigger" and steps["scheduler"].number is None
    assert steps["scheduler"].does == "On a schedule"
    assert [(s.label, s.value) for s in steps["scheduler"].values] == [("cron", "0 9 * * 5")]


def test_what_is_left_to_choose_is_named_and_never_shown_as_a_value():
    steps = cards()
    assert steps["google_sheets"].to_fill == ["spreadsheet"]
    assert steps["gmail"].to_fill == ["recipient"]
    assert steps["gmail"].values == [] and steps["google_sheets"].values == []
    # Apps n8n needs an account for say so; the scheduler needs none.
    assert steps["gmail"].account and not steps["scheduler"].account


def test_a_condition_reads_as_the_confirmation_says_it_with_the_users_words():
    condition = cards()["condition-1"]
    assert condition.does == "Only when total over 5000"
    assert condition.quote == "if the total is over 5000 also email the director"
    assert condition.number is None and condition.name == "Condition"


def test_a_branch_puts_the_gated_step_below_its_condition_beside_the_other():
    depth = {i: c.depth for i, c in cards().items()}
    assert depth == {"scheduler": 0, "google_sheets": 1, "slack": 2, "condition-1": 2, "gmail": 3}


def test_switches_lists_and_stand_ins():
    document = {
        "workflow_id": "wf-1",
        "trigger": {"kind": "manual", "node": None, "event": None},
        "nodes": [
            {"id": "gmail", "app": "gmail", "kind": "integration", "role": "source",
             "operation": "new_email", "config": {"include_attachments": True, "query": ""}},
            {"id": "pdf_parser", "app": "pdf_parser", "kind": "tool", "role": "processor",
             "operation": "extract", "config": {"fields": ["vendor", "total"]}},
            {"id": "http_request", "app": "http_request", "kind": "tool", "role": "action",
             "operation": "request", "config": {"url": "https://example.com/api"}},
        ],
        "edges": [{"from": "gmail", "to": "pdf_parser"}, {"from": "pdf_parser", "to": "http_request"}],
    }  # fmt: skip
    steps = cards(document)
    assert [c.number for c in steps.values()] == [1, 2, 3]  # nothing starts it: all are steps
    assert [(s.label, s.value) for s in steps["gmail"].values] == [("include attachments", "")]
    assert [(s.label, s.value) for s in steps["pdf_parser"].values] == [("fields", "vendor, total")]
    assert steps["http_request"].to_fill == ["url"] and steps["http_request"].values == []


def test_the_page_and_the_confirmation_use_the_same_words():
    assert WORDING == details.WORDING and DICTATED == details.DICTATED


def test_a_message_the_user_dictated_is_shown_and_a_template_is_not():
    dictated = {
        **BRANCHED,
        "nodes": [
            {**n, "config": {**n["config"], "message_template": "Deal closed, well done!"},
             "sources": {"message_template": [3]}} if n["id"] == "slack" else n
            for n in BRANCHED["nodes"]
        ],
    }  # fmt: skip
    assert ("message", "Deal closed, well done!") in [
        (s.label, s.value) for s in cards(dictated)["slack"].values
    ]
    assert "message" not in [s.label for s in cards()["slack"].values]  # "{summary}"
