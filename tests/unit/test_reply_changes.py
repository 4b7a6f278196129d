"""Replies that follow the conversation: each says what the message changed in the notes,
then asks; a model's wording that names an app the notes do not hold is not used."""

from __future__ import annotations

import itertools

from catalog import load_catalogue
from schemas.turn import Notes, Reference
from services.conversation import changes, logic
from tests.support.replay import Session

CATALOGUE = load_catalogue()


def replies(*turns: str) -> list[str]:
    """Code's reply to each turn, the annotator folding the notes in between."""
    session = Session(CATALOGUE)
    for turn in turns:
        session.say(turn)
    return [text for _kind, text in session.out.replies]


def test_a_new_app_is_acknowledged_by_name_before_the_question():
    first, second = replies(
        "When a Zendesk ticket is solved, post a note to #support in Slack.",
        "Also keep a copy of each one as a row in the 'Solved' sheet in Google Sheets.",
    )
    assert first.startswith("Added: Zendesk, Slack.")
    assert second.startswith("Added: Google Sheets.") and "?" in second


def test_an_app_turned_down_is_acknowledged_with_the_users_words():
    _first, second = replies(
        "When a HubSpot deal is won, create a task in Asana.",
        "Actually no Asana, we moved everything to Trello.",
    )
    assert "Added: Trello." in second
    assert 'Left out Asana ("Actually no Asana' in second


def test_an_app_dropped_for_another_is_left_out_without_quoting_why_it_was_wanted():
    before = Notes(
        mentioned_integrations=["slack"],
        references=[Reference(id="slack", role="wanted", quote="post it to Slack", at=1)],
    )
    after = Notes(
        mentioned_integrations=["microsoft_teams"],
        removed=["slack"],
        references=[
            Reference(id="microsoft_teams", role="wanted", quote="Teams instead", at=200_000),
            Reference(id="slack", role="turned_down", quote="post it to Slack", at=1),
        ],
    )
    said = changes.acknowledgement(before, after, CATALOGUE)
    assert said == "Added: Microsoft Teams. Left out Slack."


def test_steps_that_swap_places_are_said_as_a_change_of_order():
    def notes(translator_at: int, sentiment_at: int) -> Notes:
        refs = [
            Reference(id="translator", role="wanted", at=translator_at),
            Reference(id="sentiment", role="wanted", at=sentiment_at),
        ]
        return Notes(mentioned_tools=["sentiment", "translator"], references=refs)

    said = changes.acknowledgement(notes(20, 10), notes(5, 10), CATALOGUE)
    assert said == "Changed the order: Translator now runs before Sentiment analysis."


def test_a_message_that_changes_no_app_gets_a_short_nod_and_a_different_question():
    texts = replies(
        "When a Zendesk ticket is solved, post a note to #support in Slack.",
        "Keep the note short.",
        "Mention the ticket number.",
    )
    assert any(texts[1].startswith(nod) for nod in logic.NOTED)
    assert all(not logic.same_text(a, b) for a, b in itertools.pairwise(texts))


def test_a_model_wording_may_name_only_apps_the_notes_hold():
    notes = Notes(
        mentioned_integrations=["slack", "trello"],
        removed=["airtable"],
        references=[
            Reference(id="slack", role="wanted"),
            Reference(id="trello", role="wanted"),
            Reference(id="airtable", role="turned_down", quote="not Airtable"),
        ],
    )
    ok = "Left out Airtable, since you'll use Trello. Which Slack channel should it post to?"
    assert logic.names_only_noted_apps(ok, notes, CATALOGUE)
    invented = "Added Jira and Slack. Which Slack channel should it post to?"
    assert not logic.names_only_noted_apps(invented, notes, CATALOGUE)
