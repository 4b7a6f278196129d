"""Planner rules: the model proposes, code decides what the plan holds."""

from __future__ import annotations

import uuid

import pytest

from catalog import load_catalogue
from schemas.turn import Notes
from services.planner import logic
from services.planner.logic import Proposal

CATALOGUE = load_catalogue()


def notes(integrations=("gmail", "slack"), tools=("pdf_parser", "scheduler"), removed=()) -> Notes:
    return Notes(
        requirement_summary="Invoice PDFs from Gmail, totals posted weekly to Slack.",
        mentioned_integrations=list(integrations),
        mentioned_tools=list(tools),
        removed=list(removed),
    )


def specialists(plan: logic.Compiled) -> list[str]:
    return [n.specialist for n in plan.nodes if n.kind == "specialist"]


def test_the_heuristic_plan_has_a_specialist_and_a_config_step_per_item_then_the_fixed_region():
    proposal = logic.proposal_from(logic.heuristic_proposal(notes(), CATALOGUE))
    plan = logic.compile_plan(proposal, notes(), CATALOGUE)
    assert [(n.kind, n.node_id) for n in plan.nodes] == [
        ("specialist", "scheduler"),
        ("config", "scheduler.config"),
        ("specialist", "gmail"),
        ("config", "gmail.config"),
        ("specialist", "pdf_parser"),
        ("config", "pdf_parser.config"),
        ("specialist", "slack"),
        ("config", "slack.config"),
        ("composer", "composer"),
        ("save", "save"),
        ("summarizer", "summarizer"),
    ]
    assert plan.repairs == []
    assert all(n.instructions for n in plan.nodes)


def test_every_noted_item_gets_its_specialist_even_when_the_model_forgets_it():
    plan = logic.compile_plan(Proposal(order=("slack",)), notes(), CATALOGUE)
    assert set(specialists(plan)) == {"scheduler", "gmail", "pdf_parser", "slack"}
    assert plan.repairs.count("missing_specialist") == 3


def test_model_inventions_and_duplicates_are_dropped_and_counted():
    proposal = Proposal(
        order=("gmail", "salesforce_crm", "outlook", "gmail", "slack", "pdf_parser", "scheduler")
    )
    plan = logic.compile_plan(proposal, notes(), CATALOGUE)
    assert specialists(plan) == ["scheduler", "gmail", "pdf_parser", "slack"]
    assert {"not_in_catalogue", "not_noted", "duplicate"} <= set(plan.repairs)


def test_removed_items_never_enter_the_plan():
    plan = logic.compile_plan(
        Proposal(order=("gmail", "outlook", "slack")),
        notes(integrations=("gmail", "outlook", "slack"), removed=("outlook",)),
        CATALOGUE,
    )
    assert "outlook" not in specialists(plan)


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (
            ("slack", "pdf_parser", "gmail", "scheduler"),
            ["scheduler", "gmail", "pdf_parser", "slack"],
        ),
        (
            ("scheduler", "gmail", "pdf_parser", "slack"),
            ["scheduler", "gmail", "pdf_parser", "slack"],
        ),
    ],
)
def test_scheduler_first_then_triggers_processors_actions(order, expected):
    plan = logic.compile_plan(Proposal(order=order), notes(), CATALOGUE)
    assert specialists(plan) == expected
    assert ("ordering" in plan.repairs) == (list(order) != expected)


def test_the_models_order_within_a_role_group_is_kept():
    two_actions = notes(integrations=("gmail", "slack", "google_sheets"), tools=())
    first = logic.compile_plan(
        Proposal(order=("gmail", "google_sheets", "slack")), two_actions, CATALOGUE
    )
    second = logic.compile_plan(
        Proposal(order=("gmail", "slack", "google_sheets")), two_actions, CATALOGUE
    )
    assert specialists(first) == ["gmail", "google_sheets", "slack"] and specialists(second) == [
        "gmail",
        "slack",
        "google_sheets",
    ]
    assert first.repairs == second.repairs == []


def test_the_fixed_region_is_appended_by_code_whatever_the_model_says():
    plan = logic.compile_plan(
        Proposal(order=("composer", "save", "summarizer", "gmail")), notes(tools=()), CATALOGUE
    )
    assert [n.kind for n in plan.nodes][-3:] == ["composer", "save", "summarizer"]
    assert [n.node_id for n in plan.nodes].count("save") == 1
    assert plan.repairs.count("not_in_catalogue") == 3


def test_model_instructions_are_used_and_bounded_and_missing_ones_are_filled():
    long_text = "Watch the finance label. " * 40
    plan = logic.compile_plan(
        Proposal(order=("gmail", "slack"), instructions={"gmail": long_text, "slack": "  "}),
        notes(tools=()),
        CATALOGUE,
    )
    by_id = {n.node_id: n.instructions for n in plan.nodes}
    assert (
        by_id["gmail"].startswith("Watch the finance label.")
        and len(by_id["gmail"]) <= logic.MAX_INSTRUCTION_CHARS
    )
    assert by_id["slack"].startswith("Configure Slack")


def test_odd_model_output_is_read_tolerantly():
    proposal = logic.proposal_from(
        {"order": ["gmail", 7, None], "instructions": [{"id": "gmail", "text": "x"}, "junk"]}
    )
    assert proposal == Proposal(order=("gmail",), instructions={"gmail": "x"})
    assert logic.proposal_from({}) == Proposal()


def test_a_redelivered_confirmation_compiles_the_same_plan_id():
    confirmation = uuid.uuid4()
    assert (
        logic.plan_id_for(confirmation)
        == logic.plan_id_for(confirmation)
        != logic.plan_id_for(uuid.uuid4())
    )
