"""Fields a user listed ("extract unit price, quantity and lead time"), read by sentence
structure, and given to the step they were said for; nothing listed is nothing invented."""

from __future__ import annotations

import pytest

from catalog.values.extract import enum_choice
from catalog.values.fromwords import value_from_text
from catalog.values.lists import fields_for, listed

COLUMNS = {"type": "array", "items": {"type": "string"}, "maxItems": 30}


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        # The verb before the list and the article inside it are no part of a field.
        ("Extract unit price, quantity and lead time, and calculate the total.",
         ("unit price", "quantity", "lead time")),
        ("log the date, patient name and the medication in the sheet",
         ("date", "patient name", "medication")),
        # Participles standing alone between commas are fields too.
        ("Write part number, lot, inspected, rejected and ppm into our MySQL database.",
         ("part number", "lot", "inspected", "rejected", "ppm")),
        ("pull supplier + date + amount out and create a bill", ("supplier", "date", "amount")),
        ("Keep the column order: date, vendor, amount, status.",
         ("date", "vendor", "amount", "status")),
    ],
)  # fmt: skip
def test_a_list_of_fields_is_read_whatever_the_words_around_it(text, fields):
    assert [found.fields for found in listed(text)] == [fields]


@pytest.mark.parametrize(
    "text",
    [
        "Post it to Slack, Teams and email.",  # apps
        "Shifts change at 6am, 2pm and 10pm.",  # times
        "Our tutors are in Munich, Vienna and Zurich.",  # places
        "Send the English, Polish and Arabic versions.",  # languages
        "columns: date, amount",  # two items are no sure list
    ],
)
def test_lists_of_other_things_are_no_fields(text):
    assert listed(text) == ()


def test_a_store_takes_the_list_said_for_it_and_a_reader_takes_the_one_it_reads():
    text = (
        "Suppliers email quotes as PDFs. Pull out unit price, quantity and lead time. "
        "Then add supplier, total and status as a row in Google Sheets."
    )
    apps = ["gmail", "pdf_parser", "google_sheets"]
    assert fields_for("google_sheets", text, apps) == ["supplier", "total", "status"]
    assert fields_for("pdf_parser", text, apps) == ["unit_price", "quantity", "lead_time"]


def test_a_field_name_said_about_something_else_is_not_a_column():
    # "email" and "names" here are what the user says about patients and texts, not columns.
    text = (
        "Every request should go in as a new row in a google sheet. Half our patients never "
        "check their email, so text them instead. No medication names in the text."
    )
    apps = ["webhook", "google_sheets", "twilio_sms"]
    assert value_from_text("google_sheets", "columns", COLUMNS, text, None, apps) is None


def test_a_code_in_capitals_is_named_in_capitals_not_by_the_ordinary_word():
    methods = ["POST", "PUT", "GET"]
    assert enum_choice(methods, "put an English version of the note in the issue body") is None
    assert enum_choice(methods, "our crash reporter POSTs a JSON payload to the URL") == "POST"
    assert enum_choice(["daily", "weekly"], "send it Weekly") == "weekly"
