"""The eval's scoring (../shared/eval/FORMAT.md): a broken or padded run never scores well."""

from __future__ import annotations

import json

from planwire.evaluate import (
    Case,
    CaseResult,
    case_from,
    case_line,
    last_line,
    report_json,
    score,
    shape_errors,
    shape_line,
    summarize,
    unconfirmed,
)

RAW = {
    "id": "digest",
    "turns": ["..."],
    "confirm": "yes",
    "expect": {
        "integrations": ["gmail", "slack"],
        "tools": ["scheduler"],
        "absent": ["outlook"],
        "allowed": ["text_summarizer"],
    },
}


def test_an_unlisted_id_in_the_plan_is_extra_and_an_allowed_one_is_not():
    case = case_from(RAW)
    missing, forbidden, extra = score(
        case, ["scheduler", "gmail", "slack", "text_summarizer", "trello"]
    )
    assert (missing, forbidden, extra) == ([], [], ["trello"])


def test_missing_and_forbidden_ids_are_named():
    missing, forbidden, extra = score(case_from(RAW), ["gmail", "outlook"])
    assert (missing, forbidden, extra) == (["slack", "scheduler"], ["outlook"], [])


def test_an_errored_case_counts_every_expected_id_as_missed():
    good, broken = case_from(RAW), Case("broken", ["..."], "yes", ["notion", "github"], [])
    results = [
        CaseResult("digest", passed=True, plan=["gmail", "slack", "scheduler"]),
        CaseResult(
            "broken", passed=False, missing=list(broken.expected), error="TimeoutError: no reply"
        ),
    ]
    summary = summarize(results, [good, broken], "heuristic")
    assert summary["recall"] == 0.6 and summary["precision"] == 1.0 and summary["passed"] == 1


def test_padding_a_plan_lowers_precision_and_counts_extra():
    case = case_from(RAW)
    plan = ["gmail", "slack", "scheduler", "trello", "asana", "jira"]
    missing, forbidden, extra = score(case, plan)
    result = CaseResult(
        "digest", passed=False, missing=missing, forbidden=forbidden, extra=extra, plan=plan
    )
    summary = summarize([result], [case], "heuristic")
    assert summary["precision"] == 0.5 and summary["extra"] == 3
    assert last_line(summary).startswith(
        "eval: 0/1 passed, recall 1.00, precision 0.50, forbidden 0, extra 3,"
    )
    assert "extra=['trello', 'asana', 'jira']" in case_line(result)


# A document in the coming v2 shape: nodes name their app, a condition node names none, and
# the edges branch. The shape checks read it the same way as a linear v1 document.
REVIEWS = {
    "format": "planwire.workflow/v2",
    "trigger": {"kind": "event", "node": "n1"},
    "nodes": [
        {"id": "n1", "app": "shopify", "config": {"event": "review.created"}},
        {"id": "n2", "kind": "condition", "config": {"field": "rating", "op": "<=", "value": 1}},
        {"id": "n3", "app": "translator", "config": {"target_language": "en"}},
        {"id": "n4", "app": "sentiment", "config": {}},
        {
            "id": "n5",
            "app": "slack",
            "config": {"post": {"channel": "#support", "mention": ["@Jörg", "a/b"]}},
        },
        {"id": "n6", "app": "google_sheets", "config": {"spreadsheet": "Reviews"}},
    ],
    "edges": [
        {"from": "n1", "to": "n2"},
        {"from": "n2", "to": "n3"},
        {"from": "n3", "to": "n4"},
        {"from": "n4", "to": "n5"},
        {"from": "n2", "to": "n6"},
    ],
}


def shaped(**expect) -> Case:
    return case_from({**RAW, "expect": {**RAW["expect"], **expect}})


def test_the_trigger_is_the_app_of_the_documents_trigger_node():
    assert shape_errors(shaped(trigger="shopify"), REVIEWS) == []
    assert shape_errors(shaped(trigger="gmail"), REVIEWS) == ["trigger is shopify, expected gmail"]


def test_a_workflow_started_by_hand_has_no_expected_trigger():
    manual = {**REVIEWS, "trigger": {"kind": "manual", "node": None}}
    assert shape_errors(shaped(trigger="shopify"), manual) == [
        "trigger is manual, expected shopify"
    ]


def test_order_holds_along_a_path_of_several_edges_and_only_forwards():
    case = shaped(order=[["shopify", "sentiment"], ["translator", "slack"]])
    assert shape_errors(case, REVIEWS) == []
    backwards = shaped(order=[["slack", "translator"], ["google_sheets", "slack"]])
    assert shape_errors(backwards, REVIEWS) == [
        "no path slack -> translator",
        "no path google_sheets -> slack",
    ]


def test_a_value_is_found_in_a_nested_config_as_the_user_wrote_it():
    case = shaped(values={"slack": ["#SUPPORT", "@jörg", "a/b"], "translator": ["en"]})
    assert shape_errors(case, REVIEWS) == []
    elsewhere = shaped(values={"slack": ["Reviews"], "google_sheets": ["#support"]})
    assert shape_errors(elsewhere, REVIEWS) == [
        "slack config lacks 'Reviews'",
        "google_sheets config lacks '#support'",
    ]


def test_a_star_value_may_sit_in_a_condition_node_that_matches_no_id():
    assert shape_errors(shaped(values={"*": ["rating", "1"]}), REVIEWS) == []
    assert shape_errors(shaped(values={"*": ["stars"]}), REVIEWS) == ["no config has 'stars'"]
    assert shape_errors(shaped(order=[["shopify", "condition"]]), REVIEWS) == [
        "no path shopify -> condition"
    ]


def test_a_v1_document_is_read_by_its_specialist_ids():
    document = {
        "format": "planwire.workflow/v1",
        "trigger": {"kind": "schedule", "node": "scheduler"},
        "nodes": [
            {"id": "scheduler", "specialist": "scheduler", "config": {"cron": "0 7 * * 1-5"}},
            {"id": "gmail", "specialist": "gmail", "config": {"query": "invoice"}},
            {"id": "slack", "specialist": "slack", "config": {"channel": "#finance"}},
        ],
        "edges": [{"from": "scheduler", "to": "gmail"}, {"from": "gmail", "to": "slack"}],
    }
    case = shaped(
        trigger="scheduler",
        order=[["scheduler", "slack"]],
        values={"scheduler": ["0 7 * * 1-5"], "slack": ["#finance"]},
    )
    assert shape_errors(case, document) == []


def test_without_a_document_every_shape_check_fails_once():
    case = shaped(
        trigger="shopify", order=[["translator", "sentiment"]], values={"slack": ["#support"]}
    )
    assert shape_errors(case, None) == [
        "trigger is missing, expected shopify",
        "no path translator -> sentiment",
        "slack config lacks '#support'",
    ]
    assert shape_errors(case_from(RAW), None) == []  # a v1 case checks no shape


def test_a_shape_error_fails_the_case_and_shows_in_every_closing_line():
    case = shaped(trigger="gmail", order=[["gmail", "slack"]], values={"slack": ["#ops"]})
    errors = shape_errors(case, REVIEWS)
    result = CaseResult("digest", passed=False, shape=errors, plan=["gmail", "slack", "scheduler"])
    summary = summarize([result], [case], "heuristic")
    assert last_line(summary) == (
        "eval: 0/1 passed, recall 1.00, precision 1.00, forbidden 0, extra 0, shape 3, "
        "prompt_tokens 0"
    )
    assert shape_line(summary) == (
        "shape checks: 0/3 passed; cases fully right: 0/1; stated values in the confirmation: 0/1"
    )
    assert "shape=['trigger is shopify, expected gmail', 'no path gmail -> slack'" in case_line(
        result
    )


def test_the_report_carries_each_cases_workflow_and_shape_errors():
    case = shaped(trigger="shopify", values={"slack": ["#ops"]})
    result = CaseResult(
        "digest",
        passed=False,
        shape=shape_errors(case, REVIEWS),
        plan=["gmail", "slack", "scheduler"],
        workflow=REVIEWS,
    )
    report = json.loads(report_json([result], summarize([result], [case], "heuristic")))
    assert report["cases"][0]["workflow"] == REVIEWS
    assert report["cases"][0]["shape"] == ["slack config lacks '#ops'"]
    assert report["summary"]["shape"] == 1 and report["summary"]["shape_checks"] == 2


def test_the_report_lists_stated_values_the_confirmation_does_not_show():
    case = shaped(values={"slack": ["#ops"], "*": ["urgent", "#ops"]})
    shown = "Starts: Gmail (new email)\n1. Slack: post a message to #ops"
    assert unconfirmed(case, shown) == ["urgent"]
    result = CaseResult("digest", passed=True, confirmation=shown, plan=["gmail", "slack"])
    summary = summarize([result], [case], "heuristic")
    assert shape_line(summary).endswith("stated values in the confirmation: 1/2")
