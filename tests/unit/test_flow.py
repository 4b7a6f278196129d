"""The workflow's shape from the notes (catalog/flow.py) and the conditions said in words
(catalog/values/conditions.py): what starts it, the order, what each step does."""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from catalog.flow import operation_of, ordered, trigger_of
from catalog.values.conditions import stated_conditions
from schemas.turn import Notes
from services.annotator.logic import ModelView, fold

CATALOGUE = load_catalogue()


def notes_of(*turns: str) -> Notes:
    notes = Notes()
    for text in turns:
        notes = fold(notes, text, ModelView(), CATALOGUE, 0.8, None).notes
    return notes


def test_the_app_the_user_describes_an_event_in_starts_it_and_steps_follow_the_telling():
    notes = notes_of(
        "Post a note in #billing on Slack whenever a Stripe charge fails, "
        "after translating the customer's message and checking its tone."
    )
    assert trigger_of(notes, CATALOGUE) == "stripe"
    assert ordered(notes, CATALOGUE) == ["stripe", "translator", "sentiment", "slack"]
    assert operation_of("slack", notes, CATALOGUE) == "post_message"


def test_a_schedule_starts_it_and_an_app_read_from_comes_before_the_work_and_the_sending():
    notes = notes_of(
        "Each Friday at 4pm, send the weekly summary by Gmail to boss@firm.org.",
        "The numbers come from our Google Sheet of orders; total them first.",
    )
    assert trigger_of(notes, CATALOGUE) == "scheduler"
    steps = ordered(notes, CATALOGUE)
    assert steps[0] == "scheduler" and steps[-1] == "gmail"
    assert steps.index("google_sheets") < steps.index("calculator")
    assert operation_of("gmail", notes, CATALOGUE) == "send_email"
    assert operation_of("google_sheets", notes, CATALOGUE) == "read_rows"


def test_people_putting_files_into_an_app_is_what_starts_the_run():
    notes = notes_of(
        "Our drivers upload delivery photos to Dropbox; read the text and add a row in Airtable."
    )
    assert trigger_of(notes, CATALOGUE) == "dropbox"
    assert ordered(notes, CATALOGUE)[0] == "dropbox"


def test_writing_a_new_row_is_an_order_and_the_event_described_starts_it():
    notes = notes_of(
        "Our site's signup form can call a webhook.", "Add each one as a new row in Airtable."
    )
    assert trigger_of(notes, CATALOGUE) == "webhook"
    assert ordered(notes, CATALOGUE) == ["webhook", "airtable"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Only refunds of more than 250 euros, please.", ("greater_than", "250")),
        ("If a ticket has fewer than 3 replies, ignore it.", ("less_than", "3")),
        ("Just the 2-star reviews or worse.", ("at_most", "2")),
        ("Only issues labelled regression.", ("equals", "regression")),
        ("Ignore anyone writing from hotmail.co.uk.", ("not_contains", "hotmail.co.uk")),
        ("If the mood is negative, call me.", ("equals", "negative")),
        ("Pass on every post that has the word recall in its title.", ("contains", "recall")),
        ("Look for contracts ending in the next 30 days.", ("at_most", "30")),
        ("Big orders only. Set the cut-off at 800, not 1000.", ("greater_than", "800")),
        ("Above 400 only. Hmm, make the limit 350 instead of 400.", ("greater_than", "350")),
        ("Only for bookings of £2,500 or more.", ("at_least", "2500")),
        ("Skip it unless the crate holds 12 or fewer bottles.", ("at_most", "12")),
    ],
)
def test_a_stated_condition_is_read_with_its_value(text, expected):
    found = stated_conditions(text)
    assert [(c.operator, c.value) for c in found][:1] == [expected]


def test_a_quoted_name_of_where_things_go_is_no_condition():
    text = (
        "Whenever a new row has the word 'damage' in the notes, make a card on our "
        "Trello board 'Maintenance'."
    )
    assert [c.value for c in stated_conditions(text)] == ["damage"]
    # a label marks the items themselves: quoted, it is what to look for
    labelled = "When an issue gets the label 'customer', create a task in Asana."
    assert [c.value for c in stated_conditions(labelled)] == ["customer"]


def test_an_app_first_told_as_history_is_placed_where_it_is_wanted():
    notes = notes_of(
        "Head office put all of us on Microsoft Teams last year.",
        "Review emails come into our Gmail inbox.",
        "Every Monday at 9:00, summarise last week's review emails.",
        "Post that into the Teams channel called Reception Team.",
    )
    assert ordered(notes, CATALOGUE) == [
        "scheduler",
        "gmail",
        "text_summarizer",
        "microsoft_teams",
    ]
    assert operation_of("microsoft_teams", notes, CATALOGUE) == "post_message"
    # on a schedule, the mailbox is searched for what came in; no new email starts it
    assert operation_of("gmail", notes, CATALOGUE) == "search_emails"


@pytest.mark.parametrize(
    "text",
    [
        "Send it every day at 9am.",
        "Anything above 5,000 counts as a large item.",  # a definition, not a filter
        "Email the digest to sales@acme.com.",
    ],
)
def test_times_definitions_and_recipients_are_no_condition(text):
    assert stated_conditions(text) == []


def test_a_feeling_is_a_condition_only_of_a_workflow_that_reads_one():
    text = "The chef gets upset if a supplier is late. When an order email comes in, log it."
    assert stated_conditions(text, ["gmail", "google_sheets"]) == []
    assert [c.value for c in stated_conditions(text, ["gmail", "sentiment"])] == ["upset"]


def test_a_feed_is_read_even_when_told_after_the_work_on_it():
    notes = notes_of(
        "Every Monday at 9, a short digest of competitors' posts, please.",
        "Their posts come from three RSS feeds; post the digest to Slack #intel.",
    )
    steps = ordered(notes, CATALOGUE)
    assert steps.index("rss") < steps.index("text_summarizer") < steps.index("slack")


@pytest.mark.parametrize(
    ("text", "app", "event"),
    [
        ("When a Stripe payment fails, email the customer from Gmail.", "stripe", "payment_failed"),
        ("When someone opens a new GitHub issue, post it to #dev in Slack.", "github", "new_issue"),
        ("If a Shopify order gets cancelled, post it in Slack #ops.", "shopify", "order_cancelled"),
        ("When a Zendesk ticket is solved, send the customer a survey by Gmail.", "zendesk", "ticket_solved"),
        ("When a deal moves to another stage in HubSpot, post to #deals in Slack.", "hubspot", "deal_stage_changed"),
        # nothing tells the events apart: the app's default
        ("When a customer pays in Stripe, add a row to the Sales sheet in Google Sheets.", "stripe", "charge_succeeded"),
        ("Every new Shopify order goes to #orders in Slack.", "shopify", "new_order"),
    ],
)  # fmt: skip
def test_the_trigger_starts_on_the_event_the_user_described(text, app, event):
    notes = notes_of(text)
    assert trigger_of(notes, CATALOGUE) == app
    assert operation_of(app, notes, CATALOGUE) == event


def test_a_chat_named_with_no_verb_is_told_after_the_work_when_data_comes_from_elsewhere():
    notes = notes_of(
        "When a Shopify order is paid I'd like a little cheer in Slack, channel #sales.",
        "Prices are in GBP, so convert the total to euros at 1.17 before it's posted.",
    )
    steps = ordered(notes, CATALOGUE)
    assert steps[0] == "shopify" and steps.index("calculator") < steps.index("slack")


def test_what_each_item_gets_in_an_app_is_written_there():
    notes = notes_of(
        "Invoices reach our Outlook as PDFs; read them and add up the line amounts.",
        "Every invoice should also get a row in the Google Sheet called Ledger.",
    )
    steps = ordered(notes, CATALOGUE)
    assert steps.index("calculator") < steps.index("google_sheets")
    assert operation_of("google_sheets", notes, CATALOGUE) != "read_rows"


def test_files_are_read_before_any_work_on_their_words():
    notes = notes_of(
        "Quotes come to Gmail as PDFs. Add up the line amounts and post the total to #quotes "
        "in Slack. The amounts are in the PDF, so read it first, obviously."
    )
    steps = ordered(notes, CATALOGUE)
    assert steps.index("pdf_parser") < steps.index("calculator")
