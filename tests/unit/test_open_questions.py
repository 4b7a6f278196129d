"""Open questions from code: what the workflow still needs, most important first, asked one
at a time and never twice in a row; once the user is done, listed as "To fill in later"."""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from schemas.turn import ChatMessage, Notes
from services.annotator import needs
from services.annotator.logic import ModelView, fold
from services.conversation import logic
from services.conversation.summary import TO_FILL, UPDATED
from tests.support.replay import Session

CATALOGUE = load_catalogue()


def notes_after(*turns: str) -> Notes:
    """The notes after these user turns, each answered with code's own reply."""
    session = Session(CATALOGUE)
    for turn in turns:
        session.say(turn)
    return session.out.notes


def test_with_nothing_to_start_it_the_first_question_is_what_starts_it():
    notes = notes_after("Translate the text to Spanish and post it to #general on Slack.")
    assert notes.hints[0] == needs.ASK_TRIGGER


def test_an_event_the_app_does_not_offer_is_said_plainly():
    notes = notes_after("When someone leaves a review on Shopify, post it to #reviews in Slack.")
    assert notes.hints[0].startswith("Shopify has no event for reviews")
    assert "How do the reviews reach you" in notes.hints[0]


@pytest.mark.parametrize(
    "text",
    [
        "When a new order comes in on Shopify, post it to #orders in Slack.",
        "When a deal closes in Salesforce, post it to #wins in Slack.",
        "Every new Stripe subscription should add a row to the 'MRR' sheet in Google Sheets.",
        "When an invoice arrives in Gmail, add a row to the 'Bills' spreadsheet in Google Sheets.",
    ],
)
def test_an_event_the_app_offers_raises_no_question(text):
    assert not any("has no event" in h for h in notes_after(text).hints)


def test_a_required_value_nobody_stated_is_asked_and_one_stated_is_not():
    missing = notes_after("When a Stripe payment fails, post the customer's name in Slack.")
    assert "Which Slack channel should it post to?" in missing.hints
    given = notes_after(
        "When a Stripe payment fails, post the customer's name in #billing on Slack."
    )
    assert not any("channel" in h for h in given.hints)


@pytest.mark.parametrize(
    "text",
    [
        "When a Stripe payment fails, post it in the finance channel on Slack.",
        "When a Stripe payment fails, email it to ops@example.org with Gmail.",
        "When a Shopify order ships, text the customer the tracking link with Twilio.",
        "Every new Stripe charge adds a row to our Expenses 2025 sheet in Google Sheets.",
        "When a Stripe charge comes in, add a card to the 'Inbox' list of our Workshop board in Trello.",
        "When a Zendesk ticket arrives, translate it into German and post it to #support in Slack.",
    ],
)
def test_a_value_the_workflow_will_hold_is_not_asked_for(text):
    notes = notes_after(text)
    assert not [h for h in notes.hints if h.startswith("Which") or h.startswith("Who")]


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("When a Stripe payment fails, post it to the Slack channel.", "Which Slack channel"),
        ("When a Stripe payment fails, send an email with Gmail.", "Who should the Gmail message"),
        ("When a Stripe payment fails, email me with Gmail.", "Who should the Gmail message"),
        ("When a Stripe payment fails, email the team with Gmail.", "Who should the Gmail message"),
        (
            "For each Stripe charge add a row to a new Google Sheets spreadsheet.",
            "Which spreadsheet",
        ),
        ("When a Zendesk ticket arrives, translate it and post it to #support.", "Which language"),
    ],
)
def test_a_value_the_workflow_would_leave_open_is_asked_for(text, question):
    assert any(h.startswith(question) for h in notes_after(text).hints)


def test_the_most_important_comes_first_and_there_are_at_most_five():
    notes = notes_after(
        "When someone leaves a review on Shopify, translate it, add a row to Google Sheets, "
        "make a Trello card, post to Slack and email the team lead with Gmail."
    )
    assert len(notes.hints) <= 5
    assert notes.hints[0].startswith("Shopify has no event")
    assert any("spreadsheet" in h for h in notes.hints)


def test_the_users_short_answer_to_the_question_settles_it():
    history = [
        ChatMessage(
            role="user", text="New rows in Google Sheets become Trello cards.", turn_id="1"
        ),
        ChatMessage(
            role="assistant", text="Got it. Which board in Trello should it add to?", turn_id="1"
        ),
        ChatMessage(role="user", text="Workshop", turn_id="2"),
    ]
    assert needs.answered(history) == [(history[1].text, "Workshop")]
    for remark in ("ok", "Use euros as the currency.", "not sure yet", "that's it"):
        assert not needs.an_answer(remark)


def test_a_reply_that_is_plainly_another_value_does_not_settle_the_question_asked():
    session = Session(CATALOGUE)
    session.say("New rows in the Google Sheets Leads sheet become Trello cards and Slack posts.")
    board = "Which board in Trello should it add to?"
    assert session.out.replies[-1][1].endswith(board)
    session.say("#sales")  # the channel, given before it was asked
    assert board in session.out.notes.hints
    assert not any("channel" in h for h in session.out.notes.hints)


def test_the_reply_asks_one_question_at_a_time_and_never_the_same_twice_in_a_row():
    session = Session(CATALOGUE)
    session.say("When a Stripe payment fails, post the customer's name in Slack.")
    first = session.out.replies[-1][1]
    assert first.endswith("Which Slack channel should it post to?")
    session.say("Please keep the message short.")  # the question is not answered
    second = session.out.replies[-1][1]
    assert "Which Slack channel" not in second and "?" in second
    session.say("#billing")
    assert not any("channel" in h for h in session.out.notes.hints)


def test_once_the_user_is_done_open_questions_are_to_fill_in_later():
    session = Session(CATALOGUE)
    session.say("When a Stripe payment fails, post the customer's name in Slack.")
    session.say("that's all")
    kind, text = session.out.replies[-1]
    assert kind == "confirmation"
    assert "To fill in later: Which Slack channel should it post to?" in text
    assert text.index("Starts: Stripe") < text.index("1. Slack") < text.index("To fill in later")


def test_a_model_hint_that_is_guidance_is_never_put_to_the_user_as_is():
    view = ModelView(hints=("ask about the timing",))
    notes = fold(Notes(), "Post Stripe refunds to #refunds in Slack.", view, CATALOGUE, 0.8, None)
    assert "ask about the timing" in notes.notes.hints
    assert "ask about the timing" not in logic.question_reply(notes.notes, "", CATALOGUE, None)


def test_a_value_given_at_the_confirmation_shows_the_summary_again_with_it():
    session = Session(CATALOGUE)
    session.say("When a row is added to our Google Sheet, post it to #sales in Slack.")
    session.say("That's everything.")
    assert session.out.phase == "confirming"
    assert TO_FILL in session.out.replies[-1][1]  # which spreadsheet is still open
    session.say("Oh, the spreadsheet is called Leads 2026.")
    kind, text = session.out.replies[-1]
    assert (kind, session.out.phase) == ("confirmation", "confirming")
    assert text.startswith(UPDATED) and "Leads 2026" in text and TO_FILL not in text


def test_moving_to_another_app_of_the_same_kind_replaces_the_noted_one():
    notes = notes_after(
        "When a Stripe payment comes in, email the client a thank-you from Gmail.",
        "Oh, I moved my business email over to Outlook in May, so send it from there.",
    )
    assert "outlook" in notes.mentioned_integrations
    assert "gmail" not in notes.mentioned_integrations and "gmail" in notes.removed
