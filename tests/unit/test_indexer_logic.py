"""The outline's rules: code keeps the tree sound whatever the model proposes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from catalog import find_mentions, load_catalogue
from schemas.outline import IndexedTurn, Outline
from services.indexer import logic
from services.indexer.handlers import asked_for
from services.indexer.logic import Limits, Proposal
from tests.support.long_conversation import long_session

CATALOGUE = load_catalogue()
LIMITS = Limits(topic_turns=20, phase_turns=80)
Proposer = Callable[[Outline, list[IndexedTurn]], tuple[Proposal, str]]


def turns_of(texts: list[str]) -> list[IndexedTurn]:
    return [
        IndexedTurn(seq=i, turn_id=f"t{i}", text=t, ids=find_mentions(t, CATALOGUE))
        for i, t in enumerate(texts, 1)
    ]


def index_all(turns: list[IndexedTurn], propose: Proposer) -> tuple[Outline, list[str]]:
    """Index every complete batch the way the handler does; the tree and every override."""
    outline, overrides = Outline(), []
    by_seq = {t.seq: t for t in turns}
    while (batch := logic.pending_batch(outline, by_seq)) is not None:
        proposal, source = propose(outline, batch)
        placed = logic.place(outline, proposal, batch, LIMITS, source)
        outline, overrides = placed.outline, overrides + placed.overrides
    return outline, overrides


def heuristic(outline: Outline, batch: list[IndexedTurn]) -> tuple[Proposal, str]:
    return logic.heuristic(outline, batch, LIMITS), "heuristic"


def always(decision: str, title: str = "", summary: str = "") -> Proposer:
    """A scripted model that always gives the same answer."""
    return lambda outline, batch: (Proposal(decision, title, summary), "model")


def test_a_300_turn_session_with_the_heuristic_is_a_sound_tree_of_3_to_5_phases():
    outline, _ = index_all(turns_of(long_session(300, seed=11)), heuristic)
    assert logic.problems(outline, LIMITS) == []
    assert 3 <= len(outline.phases) <= 5
    assert sum(p.turns for p in outline.phases) == 300
    assert all(a.decided_by == "heuristic" for _, _, a in outline.actions())
    seqs = [s for _, _, a in outline.actions() for s in range(a.first_turn, a.last_turn + 1)]
    assert seqs == list(range(1, 301))  # every turn in exactly one action


def test_the_same_seed_gives_the_same_tree_and_another_seed_another():
    first = index_all(turns_of(long_session(300, seed=11)), heuristic)[0]
    again = index_all(turns_of(long_session(300, seed=11)), heuristic)[0]
    other = index_all(turns_of(long_session(300, seed=12)), heuristic)[0]
    assert first == again
    assert first != other


def test_a_model_that_always_extends_is_overridden_and_the_overrides_are_named():
    turns = turns_of(long_session(300, seed=11))
    outline, overrides = index_all(turns, always("extend_topic", summary="x"))
    assert logic.problems(outline, LIMITS) == []
    assert 4 <= len(outline.phases) <= 5  # only the phase limit opens phases
    assert overrides.count("first_phase") == 1
    assert overrides.count("phase_full") == len(outline.phases) - 1
    assert overrides.count("topic_full") == sum(len(p.topics) - 1 for p in outline.phases)
    assert max(t.turns for p in outline.phases for t in p.topics) == 20
    assert {a.decided_by for _, _, a in outline.actions()} == {"model", "code"}


def test_a_model_that_always_opens_phases_still_yields_a_valid_tree():
    outline, overrides = index_all(
        turns_of(long_session(40, seed=3)), always("new_phase", "Quantum synergy", "made up")
    )
    assert logic.problems(outline, LIMITS) == []
    assert len(outline.phases) == 10
    assert "title_not_grounded" in overrides and "summary_not_grounded" in overrides


def test_a_titles_and_summaries_not_in_the_users_words_are_replaced_by_the_batchs_own():
    batch = turns_of(
        [
            "Invoices come in by email every week.",
            "The invoices have a total and a vendor.",
            "We file invoices by vendor.",
            "Totals matter most.",
        ]
    )
    enforced, rules = logic.enforce(
        Outline(),
        Proposal("new_phase", "Quantum blockchain synergy", "Lorem ipsum dolor"),
        batch,
        LIMITS,
    )
    assert rules == ["title_not_grounded", "summary_not_grounded"]
    assert enforced.title == "Invoices come in by email every…"
    assert enforced.summary.startswith("Invoices come in by email")
    kept, rules = logic.enforce(
        Outline(),
        Proposal("new_phase", "Weekly invoices", "Invoices by vendor, totals"),
        batch,
        LIMITS,
    )
    assert rules == [] and kept.title == "Weekly invoices"


def titled(texts: list[str]) -> str:
    batch = turns_of(texts)
    return logic.heuristic(Outline(), batch, LIMITS, asked_for(batch, CATALOGUE)).title


def test_a_heuristic_title_names_the_apps_asked_for_in_the_order_named():
    title = titled(
        [
            "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total.",
            "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
            "We thought about Discord too, but leave Discord out, nobody reads it.",
            "That's everything, please confirm what you will build.",
        ]
    )
    # Not Discord, turned down; nor the schedule ("every Monday"); the digest is a summary.
    assert title == "Gmail → PDF parser → Text summarizer → Slack"


def test_without_apps_a_title_is_the_opening_of_the_first_message_that_says_something():
    assert titled(["Yes, thanks!", "Every Monday morning, nine sharp, please.", "ok", "ok"]) == (
        "Every Monday morning, nine sharp, please"
    )
    assert titled(["Yes", "ok", "sure", "thanks"]) == "Yes"


def test_the_heuristics_own_title_stands_where_the_catalogue_name_is_not_the_users_word():
    batch = turns_of(["check the tone of each message, then post it to Slack"] * 4)
    names = asked_for(batch, CATALOGUE)
    proposal = logic.heuristic(Outline(), batch, LIMITS, names)
    assert proposal.title == "Sentiment analysis → Slack"
    assert not logic.in_user_words(proposal.title, batch)  # "sentiment analysis": not said
    placed = logic.place(Outline(), proposal, batch, LIMITS, "heuristic", names)
    assert placed.overrides == [] and placed.outline.phases[0].title == proposal.title


def test_the_heuristic_opens_a_topic_when_the_batch_names_items_no_topic_mentions():
    chat = ["We talk about the team offsite."] * 4
    outline, _ = index_all(
        turns_of([*chat, "Please keep Slack in the loop.", *chat[:3]]), heuristic
    )
    assert [len(p.topics) for p in outline.phases] == [2]
    outline, _ = index_all(
        turns_of(["Please keep Slack in the loop."] * 4 + ["Slack again, for the team."] * 4),
        heuristic,
    )
    assert [len(p.topics) for p in outline.phases] == [1]  # Slack is already the topic's


@pytest.mark.parametrize("partial", [1, 2, 3])
def test_an_incomplete_batch_waits(partial):
    outline = Outline()
    turns = {t.seq: t for t in turns_of(["hello there"] * partial)}
    assert logic.pending_batch(outline, turns) is None


def test_problems_name_a_topic_over_its_limit():
    big = index_all(turns_of(long_session(40, seed=1)), always("extend_topic"))[0]
    assert logic.problems(big, Limits(topic_turns=8, phase_turns=80))
