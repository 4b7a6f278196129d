"""A schedule, a confirmation and a final summary a person can check: times in words with
their time zone, the steps in the order they run, and only the values the user gave."""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from catalog.values.crons import cron, in_words
from services.specialist import summary
from tests.support.replay import Session

CATALOGUE = load_catalogue()


@pytest.mark.parametrize(
    ("cron", "said"),
    [
        ("0 18 * * *", "every day at 18:00"),
        ("30 7 * * 1-5", "every weekday (Monday to Friday) at 07:30"),
        ("0 9 * * 1", "every Monday at 09:00"),
        ("0 7 * * 1,3,5", "every Monday, Wednesday and Friday at 07:00"),
        ("0 9,17 * * *", "every day at 09:00 and 17:00"),
        ("0 6 1 * *", "on day 1 of every month at 06:00"),
        ("*/15 * * * 1-5", "every 15 minutes on weekdays (Monday to Friday)"),
        ("0 * * * *", "every hour"),
        ("5 4 1-7 * 1", "on the cron 5 4 1-7 * 1"),  # not a form people say: shown as it is
    ],
)
def test_a_cron_is_said_in_words(cron, said):
    assert in_words(cron) == said


def confirmation(*turns: str) -> str:
    session = Session(CATALOGUE)
    for turn in turns:
        session.say(turn)
    session.say("that's all")
    kind, text = session.out.replies[-1]
    assert kind == "confirmation"
    return text


def test_the_confirmation_says_when_it_runs_in_words_and_that_the_time_zone_is_assumed():
    text = confirmation(
        "Every weekday at 7:30, read new rows from Airtable and post them in #ops on Slack."
    )
    starts = next(line for line in text.splitlines() if line.startswith("Starts:"))
    assert "every weekday (Monday to Friday) at 07:30" in starts
    assert "cron 30 7 * * 1-5" in starts  # what will be saved, for those who read crons
    assert "UTC unless you tell me your time zone" in starts


def test_a_stated_time_zone_is_shown_and_not_assumed():
    text = confirmation(
        "Every Monday at 9am Europe/Berlin time, post our Stripe payouts in #finance on Slack."
    )
    starts = next(line for line in text.splitlines() if line.startswith("Starts:"))
    assert "every Monday at 09:00, time zone Europe/Berlin" in starts and "UTC" not in starts


def test_the_confirmation_opens_with_the_steps_in_the_order_they_run_not_alphabetically():
    text = confirmation(
        "When a new order comes in on Shopify, translate the note to English and post it in #orders on Slack."
    )
    first = text.splitlines()[0]
    assert first.index("Shopify") < first.index("Translator") < first.index("Slack")


def test_the_final_summary_says_when_it_runs_and_only_values_the_user_gave():
    document = {
        "title": "Scheduler → Shopify → Telegram",
        "workflow_id": "wf-1",
        "trigger": {"kind": "schedule", "node": "scheduler", "event": "schedule"},
        "schedule": {"cron": "0 18 * * *", "timezone": "UTC"},
        "nodes": [
            {"id": "scheduler", "app": "scheduler", "role": "trigger", "operation": "schedule",
             "config": {"cron": "0 18 * * *"}, "sources": {"cron": [4]}},
            {"id": "shopify", "app": "shopify", "role": "source", "operation": "list_orders",
             "config": {}},
            {"id": "telegram", "app": "telegram", "role": "action", "operation": "send_message",
             "config": {"chat_id": "Packing Shed", "message_template": "{text}"},
             "sources": {"chat_id": [4]}},
            {"id": "twilio_sms", "app": "twilio_sms", "role": "action", "operation": "send_sms",
             "config": {"to": "+10000000000"}},
        ],
    }  # fmt: skip
    text = summary.heuristic_summary(document, CATALOGUE)
    assert "Scheduler runs it every day at 18:00, time zone UTC (cron 0 18 * * *)" in text
    assert (
        "Shopify: read orders" in text and "Telegram: send a message (chat id Packing Shed)" in text
    )
    assert "{text}" not in text and "message template" not in text  # wording is no setting
    assert "+10000000000" not in text and "Still to fill in: recipient for Twilio SMS" in text


def test_a_message_the_user_dictated_is_the_messages_text_and_shown_for_checking():
    text = confirmation(
        "When someone fills in our website form it calls a webhook; text the patient via Twilio.",
        "No medication names in the text, just something like 'we've received your request, "
        "please allow 2 working days'.",
    )
    step = next(line for line in text.splitlines() if "Twilio SMS:" in line)
    assert 'message "we\'ve received your request, please allow 2 working days"' in step


@pytest.mark.parametrize(
    "said",
    [
        "My mum said 'just text me when it's done' so WhatsApp her.",  # someone else's words
        "Reviews like 'love the bracelet, so pretty' should go to Telegram.",  # an example
    ],
)
def test_quoted_words_that_are_no_dictated_message_are_not_the_messages_text(said):
    from catalog.values.stated import stated_value

    assert stated_value("whatsapp", "message_template", {"to", "message_template"}, said) == []
    assert stated_value("telegram", "message_template", {"chat_id", "message_template"}, said) == []


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("every thurs at 4pm post the rota", "0 16 * * 4"),
        ("every fri 8am send the list", "0 8 * * 5"),
        ("every day at 7 while the sun is still low", "0 7 * * *"),
    ],
)
def test_a_days_short_name_after_every_or_on_is_that_day(said, expected):
    assert cron(said) == expected
