"""Change-unit trimming: never splits a unit, keeps the newest, fits the budget."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schemas.turn import ChatMessage
from services.trimmer import logic
from services.trimmer.logic import estimate_tokens, group_units, trim


def msg(role: str, text: str, turn: str = "t") -> ChatMessage:
    return ChatMessage(role=role, text=text, turn_id=turn)


transcripts = st.lists(
    st.tuples(st.sampled_from(["user", "assistant"]), st.text(min_size=1, max_size=200)),
    min_size=1,
    max_size=40,
).map(lambda pairs: [msg(role, text) for role, text in pairs])


def test_a_unit_is_the_users_messages_and_the_replies_that_follow():
    history = [
        msg("user", "a"),
        msg("assistant", "b"),
        msg("user", "c"),
        msg("user", "d"),
        msg("assistant", "e"),
    ]
    assert [[m.text for m in u] for u in group_units(history)] == [["a", "b"], ["c", "d", "e"]]


def test_oldest_units_are_dropped_first():
    history = [
        msg("user", "x" * 400),
        msg("assistant", "ok"),
        msg("user", "y" * 40),
        msg("assistant", "ok"),
        msg("user", "z"),
    ]
    kept, dropped = trim(history, budget=60)
    assert [m.text[0] for m in kept] == ["y", "o", "z"]
    assert dropped == 1


def test_latest_unit_is_kept_even_when_it_alone_exceeds_the_budget():
    kept, dropped = trim(
        [msg("user", "old"), msg("assistant", "ok"), msg("user", "w" * 10_000)], budget=10
    )
    assert [m.text for m in kept] == ["w" * 10_000]
    assert dropped == 1


@given(transcripts, st.integers(min_value=1, max_value=400))
def test_never_splits_a_unit(history, budget):
    kept, _ = trim(history, budget)
    units = group_units(history)
    kept_ids = {id(m) for m in kept}
    for unit in units:
        assert all(id(m) in kept_ids for m in unit) or not any(id(m) in kept_ids for m in unit)


@given(transcripts, st.integers(min_value=1, max_value=400))
def test_keeps_a_newest_suffix_including_the_latest_unit(history, budget):
    kept, dropped = trim(history, budget)
    assert kept == history[len(history) - len(kept) :]
    assert kept[-1] is history[-1]
    assert dropped == len(group_units(history)) - len(group_units(kept))


@given(transcripts, st.integers(min_value=1, max_value=400))
def test_fits_the_budget_unless_one_unit_alone_exceeds_it(history, budget):
    kept, _ = trim(history, budget)
    cost = sum(estimate_tokens(m.text) for m in kept)
    assert cost <= budget or len(group_units(kept)) == 1


def test_turns_before_the_stored_window_count_as_dropped_units():
    assert logic.outside_window(3, None) == 0
    assert logic.outside_window(40, 40) == 0
    assert logic.outside_window(300, 40) == 260
