"""Recall of trimmed-away turns: the relevant ones, within the budget, labelled as reference."""

from __future__ import annotations

from catalog import find_mentions, load_catalogue
from schemas.outline import IndexedTurn, Outline
from schemas.plan import PlanNode
from services.indexer import logic
from services.specialist import cite
from services.specialist.context import recall_query
from shared import recall
from tests.support.long_conversation import EURO_DETAIL, euro_conversation

CATALOGUE = load_catalogue()
LIMITS = logic.Limits()


def indexed(texts: list[str]) -> tuple[Outline, dict[int, IndexedTurn]]:
    turns = {
        i: IndexedTurn(seq=i, turn_id=f"t{i}", text=t, ids=find_mentions(t, CATALOGUE))
        for i, t in enumerate(texts, 1)
    }
    outline = Outline()
    while (batch := logic.pending_batch(outline, turns)) is not None:
        proposal = logic.heuristic(outline, batch, LIMITS)
        outline = logic.place(outline, proposal, batch, LIMITS, "heuristic").outline
    return outline, turns


def calculator_query() -> str:
    node = PlanNode(
        node_id="calculator",
        kind="specialist",
        specialist="calculator",
        runner="calculator",
        instructions="Configure the Calculator step.",
    )
    return recall_query(node, CATALOGUE.get("calculator"))


def test_a_detail_given_at_turn_3_is_recalled_for_the_step_whose_config_needs_it():
    outline, turns = indexed(euro_conversation(120))
    shown = {f"t{i}" for i in range(106, 121)}  # the step's window: the last 15 turns
    passages = recall.passages_of(outline, turns, exclude=shown)
    found = recall.recall(passages, calculator_query(), ["calculator"], budget_tokens=200)
    assert EURO_DETAIL in [p.text for p in found]
    assert sum(recall.estimate_tokens(recall.line(p)) for p in found) <= 200
    best = recall.recall(passages, calculator_query(), ["calculator"], budget_tokens=25)
    assert [p.text for p in best] == [EURO_DETAIL]  # the best match, when only one fits


def test_turns_the_prompt_already_shows_are_not_recalled():
    outline, turns = indexed(euro_conversation(40))
    passages = recall.passages_of(outline, turns, exclude={"t3"})
    found = recall.recall(passages, calculator_query(), ["calculator"], budget_tokens=200)
    assert 3 not in [p.seq for p in found]


def test_a_query_unrelated_to_anything_said_recalls_nothing():
    outline, turns = indexed(euro_conversation(40))
    passages = recall.passages_of(outline, turns)
    assert recall.recall(passages, "zebra xylophone", [], budget_tokens=500) == []


def test_the_budget_bounds_what_is_recalled_and_the_best_goes_first():
    texts = ["Post the weekly invoice digest to Slack."] + [
        f"Slack reminder number {i} about invoices." for i in range(2, 41)
    ]
    outline, turns = indexed(texts)
    passages = recall.passages_of(outline, turns)
    tight = recall.recall(passages, "weekly invoice digest", ["slack"], budget_tokens=30)
    assert [p.seq for p in tight] == [1]
    roomy = recall.recall(passages, "weekly invoice digest", ["slack"], budget_tokens=300)
    assert len(roomy) > 1 and [p.seq for p in roomy] == sorted(p.seq for p in roomy)


def test_catalogue_ids_relate_turns_that_share_no_word_with_the_query():
    outline, turns = indexed(["The team lives in Slack most of the day."] + ["hello"] * 7)
    passages = recall.passages_of(outline, turns)
    found = recall.recall(passages, "notify people", ["slack"], budget_tokens=100)
    assert [p.seq for p in found] == [1]


def test_the_block_is_labelled_reference_not_instructions():
    outline, turns = indexed(euro_conversation(12))
    passages = recall.passages_of(outline, turns)
    block = recall.earlier_block(recall.recall(passages, "amounts euros", [], 100))
    assert block.startswith("Earlier in this conversation")
    assert "reference, not instructions" in block.splitlines()[0]
    assert "- turn 3, user: " + EURO_DETAIL in block
    assert recall.earlier_block([]) == ""


def test_the_document_cites_the_turns_a_config_value_came_from():
    _, turns = indexed(euro_conversation(40))
    config = {"expression": "sum(total)", "output_field": "result", "currency": "EUR"}
    assert cite.sources(CATALOGUE.get("calculator"), config, turns) == {"currency": [3]}
    assert cite.sources(CATALOGUE.get("calculator"), {"currency": "USD"}, turns) == {}
