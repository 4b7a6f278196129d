"""What the conversation node must say: complete summaries, steered questions."""

from __future__ import annotations

from catalog import load_catalogue
from schemas.turn import Notes
from services.conversation import logic

CATALOGUE = load_catalogue()


def test_summary_names_every_noted_item_even_if_the_model_wording_omits_them():
    notes = Notes(
        mentioned_integrations=["gmail", "google_sheets", "slack"],
        mentioned_tools=["pdf_parser", "scheduler"],
    )
    text = logic.confirmation_summary(notes, CATALOGUE, wording="I'll build your Slack digest.")
    for item in notes.mentioned_integrations + notes.mentioned_tools:
        assert CATALOGUE.get(item).name in text
    assert text.startswith("I'll build your Slack digest.") and text.endswith(logic.CONFIRM_PROMPT)


def test_summary_without_model_wording_uses_the_requirement_summary():
    notes = Notes(
        requirement_summary="Back up Postgres to S3 nightly.",
        mentioned_integrations=["postgres", "s3"],
    )
    assert "Back up Postgres to S3 nightly." in logic.confirmation_summary(notes, CATALOGUE)


def test_fallback_question_asks_the_first_open_question_and_never_the_one_just_asked():
    notes = Notes(hints=["Which Slack channel should it post to?", "What time should it run?"])
    assert logic.fallback_question(notes) == "Which Slack channel should it post to?"
    asked = "Added: Slack. Which Slack channel should it post to?"
    assert logic.fallback_question(notes, asked) == "What time should it run?"
    assert logic.fallback_question(Notes()) == logic.OPEN_QUESTIONS[0]


def test_a_hint_that_is_no_question_is_guidance_not_something_to_ask():
    notes = Notes(hints=["ask about the timing"])
    assert logic.fallback_question(notes) == logic.OPEN_QUESTIONS[0]


def test_only_short_real_questions_from_the_model_are_used():
    assert logic.acceptable_question("Which Slack channel should get the digest?")
    assert not logic.acceptable_question("Slack.")
    assert not logic.acceptable_question("x" * 400 + "?")


def test_a_question_while_confirming_is_answered_and_the_summary_still_stands():
    text = logic.unclear_reply("Does it handle emojis?", previous="Here is the plan ...")
    assert "still stands" in text and text.endswith(logic.CONFIRM_PROMPT)


def test_chit_chat_while_confirming_asks_for_a_yes_and_never_repeats_itself():
    first = logic.unclear_reply("Sorry, phone call.", previous="Here is the plan ...")
    second = logic.unclear_reply("Anyway, the weather is nice.", previous=first)
    third = logic.unclear_reply("Is it raining there?", previous=second)
    assert not logic.same_text(first, second) and not logic.same_text(second, third)


def test_the_confirmation_shows_each_steps_stated_values_and_the_conditions():
    from services.annotator.logic import ModelView, fold

    turns = [
        "Every weekday at 7:30, read new rows from the Airtable base 'Leads'.",
        "Only leads with a score over 80, please.",
        "Post each one to #sales-hot on Slack. That's all.",
    ]
    notes = Notes()
    for text in turns:
        notes = fold(notes, text, ModelView(), CATALOGUE, 0.8, None).notes
    summary = logic.confirmation_reply(notes, CATALOGUE, words="\n".join(turns))
    lines = summary.splitlines()
    starts = next(line for line in lines if line.startswith("Starts:"))
    assert "30 7 * * 1-5" in starts
    assert any("Airtable" in line and "Leads" in line for line in lines)
    assert any("Slack" in line and "#sales-hot" in line for line in lines)
    assert any(line.startswith("Only when") and "80" in line for line in lines)
