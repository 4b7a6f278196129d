"""The eval's scoring (../shared/eval/FORMAT.md): a broken or padded run never scores well."""

from __future__ import annotations

from planwire.evaluate import Case, CaseResult, case_from, case_line, last_line, score, summarize

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
