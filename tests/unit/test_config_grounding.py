"""Code's facts over a weak model's config, title and summary (the LLM is not in control).

The drafts below are what SmolLM2 really produced in a local-model eval run: well-formed
JSON that satisfies each schema and still describes a broken workflow.
"""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from schemas.turn import Notes
from services.planner.logic import Proposal, compile_plan
from services.specialist import compose, logic, summary, values
from state.plan import PlanLog

CATALOGUE = load_catalogue()
RESEARCH = "Every Monday, search the web for our three competitors' current pricing.\nUse a calculator step to work out the average price per seat."


@pytest.mark.parametrize(
    "cron", ["0 9 * * 1", "*/15 * * * *", "30 17 * * 1-5", "0 9 * * mon,fri", "0 0 1 jan *"]
)
def test_real_cron_expressions_pass(cron):
    assert values.is_cron(cron)


@pytest.mark.parametrize(
    "cron",
    [
        "2018-01-01T00:00:00.000000Z",
        "20 times /bin/bash -c",
        "61 * * * *",
        "0 9 * *",
        "0 25 * * *",
        "*/0 * * * *",
    ],
)
def test_things_that_are_not_cron_expressions_fail(cron):
    assert not values.is_cron(cron)


def test_time_zones_are_checked_against_the_zone_database():
    assert values.is_timezone("Europe/Berlin") and values.is_timezone("UTC")
    assert not values.is_timezone("2018-01-01T00:00:00.000000Z") and not values.is_timezone(
        "US_IPA"
    )


def test_a_schedule_the_model_garbled_is_taken_from_the_users_words():
    scheduler = CATALOGUE.get("scheduler")
    garbled = {"cron": "2018-01-01T00:00:00.000000Z", "timezone": "2018-01-01T00:00:00.000000Z"}
    config, fired = logic.ground(garbled, scheduler, RESEARCH)
    assert config == {"cron": "0 9 * * 1", "timezone": "UTC"}
    assert sorted(fired) == ["config_not_a_timezone", "config_value_from_user_words"]


def test_invented_free_text_is_replaced_and_grounded_text_is_kept():
    calculator = CATALOGUE.get("calculator")
    config, fired = logic.ground(
        {
            "decimals": 2,
            "expression": "2018-01-01T00:00:00.000000Z",
            "output_field": "price per seat",
        },
        calculator,
        RESEARCH,
    )
    # (an invented value is replaced by the open stand-in, never by a guess of our own)
    assert config == {
        "decimals": 2,
        "expression": "calculation to be chosen",
        "output_field": "price per seat",
    }
    assert fired == ["config_not_in_user_words"]


def test_a_sensible_draft_passes_untouched():
    slack = CATALOGUE.get("slack")
    draft = {"channel": "#finance", "message_template": "New invoice from {vendor}: {total}"}
    assert logic.ground(draft, slack, "Post each invoice to #finance in Slack.") == (draft, [])


def test_list_items_are_checked_one_by_one_and_the_users_fields_come_first():
    pdf = CATALOGUE.get("pdf_parser")
    config, fired = logic.ground(
        {"fields": ["invoice_number", "Your task (step 3 of 9)"]},
        pdf,
        "Pull the vendor and the total out of each invoice PDF.",
    )
    assert config["fields"] == ["vendor", "total", "invoice_number"] and fired == [
        "config_item_not_grounded"
    ]


def test_values_that_echo_the_prompt_are_never_kept():
    assert (
        values.problem(
            "query_template",
            {"type": "string"},
            "Your task (step 6 of 13): configure web search",
            {"compe"},
        )
        == "echoes_prompt"
    )


PLAN_NODES = compile_plan(
    Proposal(order=("outlook", "dropbox")),
    Notes(mentioned_integrations=["outlook", "dropbox"]),
    CATALOGUE,
).nodes
PLAN = PlanLog("plan-1", PLAN_NODES, "", "2026-01-01T00:00:00+00:00", {})


@pytest.mark.parametrize(
    ("title", "kept"),
    [
        ("Outlook attachments to Dropbox", True),
        (
            "Your task (step 5 of 7): Assemble the workflow document from the config artifacts",
            False,
        ),
        ("Workflow for DocuSign, a Cloud-based service for document editing", False),
        ("", False),
    ],
)
def test_a_title_must_name_a_part_of_the_workflow_and_not_echo_the_prompt(title, kept):
    assert compose.acceptable_title(title, PLAN, CATALOGUE) is kept


def test_a_summary_that_names_no_step_is_replaced_by_codes_own():
    names = ["Outlook", "Dropbox"]
    assert not summary.usable("Your message here", names)
    assert not summary.usable(
        "The plan to build a new workflow with a new workflow, and a new workflow", names
    )
    assert summary.usable("Attachments arriving in Outlook are saved to a Dropbox folder.", names)
