"""Confirmation verdicts: the model judges yes/no, code forces amend on real changes."""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from schemas.turn import Notes
from services.classifier.logic import heuristic_verdict, override

CATALOGUE = load_catalogue()
NOTES = Notes(mentioned_integrations=["gmail", "slack"], mentioned_tools=["pdf_parser"])


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Yes, that is all. Go ahead and build it.", "confirmed"),
        ("Looks good!", "confirmed"),
        ("Bene, that is all. Please build.", "confirmed"),
        ("right, all correct, build", "confirmed"),
        ("Please build a second one later, for now wait.", "unclear"),
        ("Actually, change the channel.", "amend"),
        ("Hmm, what does that mean for the budget?", "unclear"),
    ],
)
def test_heuristic_reads_ordinary_replies(text, verdict):
    assert heuristic_verdict(text) == verdict


def test_a_new_catalogue_item_is_amend_whatever_the_model_said():
    assert override("Yes, and also copy it to Notion.", NOTES, CATALOGUE, "confirmed") == (
        "amend",
        "new_catalogue_mention",
    )


def test_a_removal_is_amend_whatever_the_model_said():
    assert override("Yes but drop Slack.", NOTES, CATALOGUE, "confirmed") == ("amend", "removal")


def test_mentioning_an_already_noted_item_does_not_force_amend():
    assert override("Yes, Gmail and Slack, exactly.", NOTES, CATALOGUE, "confirmed") == (
        "confirmed",
        None,
    )


def test_an_invalid_model_verdict_falls_back_to_the_rules():
    assert override("Yes please.", NOTES, CATALOGUE, "maybe") == ("confirmed", "invalid_verdict")


# Chit-chat and questions while confirming are no yes: the session answers and still waits.
CHIT_CHAT = [
    "Rounding down is fine, we only deal in whole numbers.",
    "Haha great, my cohost will love that. Does it handle emojis?",
    "Will it work for the Berlin office?",
    "Sorry, phone call. Where were we?",
    "ok cool, quick question: can it cope with 500 rows",
    "The weather here is perfect today.",
    "Is that right?",
    "Ok I'm done.",
]
CONFIRMATIONS = [
    "That's fine by me, go ahead.",
    "ok",
    "Okay!",
    "ok, build it",
    "Sure thing.",
    "sounds right, go",
    "Correct. Build it.",
    "yes correct, you can make it",
    "All correct, please build it.",
    "Perfect, that's exactly it!",
    "great, that is the one, launch it",
    "Yes is correct, please do it like this",
]


@pytest.mark.parametrize("text", CHIT_CHAT)
def test_chit_chat_or_a_question_is_not_a_yes(text):
    assert heuristic_verdict(text) == "unclear"


@pytest.mark.parametrize("text", CHIT_CHAT)
def test_a_model_cannot_confirm_on_chit_chat_or_a_question(text):
    assert override(text, NOTES, CATALOGUE, "confirmed")[0] == "unclear"


@pytest.mark.parametrize("text", CONFIRMATIONS)
def test_confirmations_in_many_phrasings(text):
    assert heuristic_verdict(text) == "confirmed"
    assert override(text, NOTES, CATALOGUE, "confirmed") == ("confirmed", None)


@pytest.mark.parametrize(
    "text", ["lovely, yes please do that", "Brilliant - yes, that's it.", "Thanks, yes go on then"]
)
def test_a_yes_after_a_word_of_thanks_or_praise_confirms(text: str):
    assert heuristic_verdict(text) == "confirmed"


@pytest.mark.parametrize("text", ["lovely, quick question first", "great, but add Slack"])
def test_praise_without_a_yes_is_no_confirmation(text: str):
    assert heuristic_verdict(text) != "confirmed"


@pytest.mark.parametrize(
    "text",
    [
        "Looks right, build it. The invoice should say 'Net 30'.",
        "Yes that's correct, please build. Also use the course name in the message.",
        "yesss do it",
        "Right, please build that.",
        "Yes please. Could it skip bank holidays?",
    ],
)
def test_a_clear_go_with_a_detail_or_a_question_confirms(text: str):
    assert heuristic_verdict(text) == "confirmed"


def test_a_go_that_changes_a_catalogue_item_still_amends():
    notes = Notes(mentioned_integrations=["gmail", "slack"], mentioned_tools=[])
    verdict, _rule = override(
        "Yes build it, but post to Microsoft Teams instead.", notes, CATALOGUE, "confirmed"
    )
    assert verdict == "amend"


@pytest.mark.parametrize(
    "text",
    [
        "Oh, one more thing: the tab is called 'Week 12'.",
        "Post it in #ops-night rather than the general one.",
        "The address is ops@harbour.example, by the way.",
        "right, so the sheet is called FY27",
        "Only the ones over 200 please.",
    ],
)
def test_a_value_given_at_the_confirmation_is_a_change_to_show_again(text):
    assert override(text, NOTES, CATALOGUE, "unclear") == ("amend", "stated_value")


def test_a_yes_that_carries_a_detail_still_builds():
    verdict, _rule = override(
        "Looks right, build it. The tab is called 'Week 12'.", NOTES, CATALOGUE, "confirmed"
    )
    assert verdict == "confirmed"
