"""Values the user stated land in the config of the node they were said for, nothing invented.

Each test reads one kind of language (a name beside a container noun, a schedule, a
language, an address) the way a user would notice it in the built workflow's configs.
"""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from catalog.operations import load_operations
from catalog.values import crons
from services.specialist import logic

CATALOGUE = load_catalogue()


def config(app: str, text: str, operation: str | None = None, apps=None) -> dict:
    """The heuristic config of a node of `app`, checked against its schema."""
    entry = CATALOGUE[app]
    made = logic.heuristic_config(entry, text, operation, apps)
    logic.check(made, entry, operation)
    return made


def test_a_node_with_an_operation_follows_that_operations_schema():
    words = "When a return is approved, mail refunds@harbour.example from Gmail."
    assert config("gmail", words, "send_email") == {"to": "refunds@harbour.example"}
    # Plans compiled before operations (and unknown operations) keep the catalogue schema.
    for operation in (None, "teleport"):
        assert "query" in config("gmail", words, operation)


def test_each_value_goes_to_the_app_named_in_its_sentence():
    words = "Drop a note in #warehouse on Slack and mail dispatch@northwind.example via Gmail."
    apps = ("slack", "gmail")
    assert config("slack", words, "post_message", apps)["channel"] == "#warehouse"
    assert config("gmail", words, "send_email", apps)["to"] == "dispatch@northwind.example"


def test_two_chat_apps_in_one_sentence_each_keep_their_own_channel():
    words = "Alert #night-ops in Slack, and the Loading Bay channel in Microsoft Teams."
    apps = ("slack", "microsoft_teams")
    assert config("slack", words, "post_message", apps)["channel"] == "#night-ops"
    teams = config("microsoft_teams", words, "post_message", apps)
    assert teams["channel"] == "Loading Bay"


def test_a_value_said_for_an_app_left_out_of_the_plan_can_serve_the_one_that_is_in_it():
    words = "Post the alert to #yard on Slack."
    assert config("discord", words, "post_message", ("discord",))["channel"] == "#yard"
    assert config("discord", words, "post_message", ("discord", "slack"))["channel"] != "#yard"


@pytest.mark.parametrize(
    ("app", "operation", "words", "expected"),
    [
        (
            "airtable",
            "create_record",
            "Keep each one in our Airtable base 'Fleet Log', table Repairs.",
            {"base": "Fleet Log", "table": "Repairs"},
        ),
        (
            "trello",
            "create_card",
            "Add a card to the Night Owls board, in the 'Waiting on parts' list.",
            {"board": "Night Owls", "list": "Waiting on parts"},
        ),
        ("s3", "upload_object", "Archive the file in bucket scans-inbox.", {"bucket": "scans-inbox"}),
        ("github", "new_release", "Watch releases of repo northwind/depot.", {"repository": "northwind/depot"}),
        ("postgres", "insert_rows", "Insert a row in the kitchen_orders table.", {"table": "kitchen_orders"}),
        ("jira", "create_issue", "Open a ticket in Jira project OPSX.", {"project_key": "OPSX"}),
        ("linear", "create_issue", "File it in Linear for the Billing team.", {"team": "Billing"}),
        ("notion", "create_page", "Make a page in a Notion database called Site Visits.", {"database": "Site Visits"}),
        ("dropbox", "new_file", "Scans land in a Dropbox folder, /Depot/Scans.", {"folder": "/Depot/Scans"}),
        ("google_sheets", "append_row", "Append to the 'Q3 Stock' spreadsheet, tab 'Returns'.", {"spreadsheet": "Q3 Stock", "sheet": "Returns"}),
        ("gmail", "add_label", "Then label it Follow Up in Gmail.", {"label": "Follow Up"}),
        ("gmail", "new_email", "A Gmail filter labels them Vendor Bills already.", {"label": "Vendor Bills"}),
        ("mysql", "select_rows", "It's all in MySQL, the bookings table, one row per stay.", {"table": "bookings"}),
        ("postgres", "select_rows", "Read Postgres, table invoices, every night.", {"table": "invoices"}),
        ("google_sheets", "append_row", "Log it in the Google Sheets file Harvest Log 2026.", {"spreadsheet": "Harvest Log 2026"}),
        ("dropbox", "new_file", "New scans arrive in Dropbox under /clinic/intake.", {"folder": "/clinic/intake"}),
        ("airtable", "create_record", "Put it in our Airtable housekeeping base.", {"base": "housekeeping"}),
        ("airtable", "create_record", "A record in Airtable, base is Site Visits, table Jobs.", {"base": "Site Visits", "table": "Jobs"}),
        ("google_sheets", "append_row", "Log each one in a google sheet, 'Returns 2026'.", {"spreadsheet": "Returns 2026"}),
        ("google_sheets", "append_row", "Keep them in our google sheet, Parts Ledger.", {"spreadsheet": "Parts Ledger"}),
        ("notion", "create_page", "Add it to the Notion page called Field Notes instead.", {"database": "Field Notes"}),
        ("gmail", "new_email", "Those mails are already labelled 'vendors' by a filter.", {"label": "vendors"}),
        ("telegram", "send_message", "Post it to our Telegram channel @harbour_updates.", {"chat_id": "@harbour_updates"}),
        ("postgres", "insert_rows", "Write the readings to our PostgreSQL historian table.", {"table": "historian"}),
        ("google_sheets", "append_row", "That goes into the budget spreadsheet, in Google Sheets.", {"spreadsheet": "budget"}),
    ],
)  # fmt: skip
def test_a_name_beside_a_container_noun_fills_that_nouns_property(app, operation, words, expected):
    made = config(app, words, operation)
    assert {k: made[k] for k in expected} == expected


def test_a_product_name_or_a_day_beside_a_noun_is_not_a_name():
    assert config("slack", "Post it in the Slack channel.", "post_message")["channel"] == "#general"
    assert (
        config("trello", "Use the Trello board on Monday.", "create_card")["board"]
        == "board to be chosen"
    )
    # A word that says which kind, not which one, names nothing either.
    for words in ("Add it to a shared sheet in Google Sheets.", "Use the same sheet as before."):
        made = config("google_sheets", words, "append_row")
        assert made["spreadsheet"] == "spreadsheet to be chosen"
    # A channel without a pattern to satisfy says it is open rather than naming one.
    made = config("microsoft_teams", "Post it in Teams.", "post_message")
    assert made["channel"] == "channel to be chosen"


@pytest.mark.parametrize(
    ("words", "cron"),
    [
        ("every Tuesday at 4pm", "0 16 * * 2"),
        ("weekdays 6:15", "15 6 * * 1-5"),
        ("at 3am every night", "0 3 * * *"),
        ("every 20 minutes", "*/20 * * * *"),
        ("on the 15th of each month at 10", "0 10 15 * *"),
        ("every evening at 8", "0 20 * * *"),
        ("twice a day, at 06:45 and 18:45", "45 6,18 * * *"),
        ("every Monday, send the 40 newest orders", "0 9 * * 1"),
        ("The depot is open 7am to 4pm.\nEvery Sunday at 7pm send the totals.", "0 19 * * 0"),
        ("Every Friday at 2pm work out each driver's pay at the hourly rate.", "0 14 * * 5"),
        ("Loads arrive Monday to Wednesday.\nEvery day at 6am check them.", "0 6 * * *"),
        (
            "Every weekday at 8:30 post the list.\nHmm, make it 9:15, nobody is in at 8:30.",
            "15 9 * * 1-5",
        ),
        ("Each Sunday at 6pm send it.\nActually change it to 7pm.", "0 19 * * 0"),
        ("Every Monday at 7am post it, and make it short.", "0 7 * * 1"),
        # someone's routine told as background, then the schedule asked for
        (
            "He opens the shop every day at 7:15, so mornings are busy.\n"
            "Every evening at 8, send him tomorrow's orders.",
            "0 20 * * *",
        ),
    ],
)
def test_a_stated_schedule_becomes_its_cron(words, cron):
    assert crons.cron(words) == cron
    assert config("scheduler", words)["cron"] == cron


@pytest.mark.parametrize(
    ("words", "field", "code"),
    [
        ("Translate each complaint into Greek and Czech.", "target_language", "el"),
        ("Reviews arrive in Dutch; translate them and give me an English version.", "target_language", "en"),
        ("Translate the letters from German into Italian.", "source_language", "de"),
        ("Translate the letters from German into Italian.", "target_language", "it"),
    ],
)  # fmt: skip
def test_a_named_language_becomes_its_code(words, field, code):
    assert config("translator", words)[field] == code


def test_a_mailbox_the_user_named_even_in_part_becomes_the_search():
    words = "Orders land in our Gmail inbox, orders@, and I read them daily."
    assert config("gmail", words, "new_email")["query"] == "to:orders@"
    words = "The minutes come from clerk@parishhall.example to my Gmail."
    assert config("gmail", words, "new_email")["query"].startswith("from:clerk@parishhall.example")


@pytest.mark.parametrize(
    "number",
    [
        "602-555-0143",
        "(415) 555 0182",
        "07700 900123",
        "602.555.0143",
        "07911123456",
        "020 7946 0958",
        "06-12345678",
    ],
)
def test_a_national_phone_number_is_kept_as_written(number):
    assert (
        config("twilio_sms", f"Text the caretaker on {number} when it trips.", "send_sms")["to"]
        == number
    )


@pytest.mark.parametrize(
    "words",
    [
        "Text me about order 0012345678901234 when it ships.",
        "Text me when invoice 0123456 is paid.",
        "Text me when the total passes 0123456789.5 units.",
    ],
)
def test_a_reference_or_a_decimal_starting_with_zero_is_no_phone_number(words):
    assert config("twilio_sms", words, "send_sms")["to"] == "+10000000000"


def test_a_date_and_time_is_no_phone_number():
    made = config("twilio_sms", "Text me about the order from 2025-01-15 09:30.", "send_sms")
    assert made["to"] == "+10000000000"


def test_a_phone_number_is_kept_as_written_without_its_spaces():
    words = "Text the foreman on +1 415 555 0199 through Twilio."
    assert config("twilio_sms", words, "send_sms")["to"] == "+14155550199"


def test_rates_and_factors_said_for_a_calculation_land_in_its_expression():
    words = "Calculate the price with 8% tax, then a 12% discount, times 2 for the pair."
    expression = config("calculator", words)["expression"]
    assert "+ 8/100" in expression and "- 12/100" in expression and "* 2" in expression


def test_what_to_search_for_becomes_the_search_query():
    words = "Every morning search for Lisbon ferry strikes and send me the links."
    assert config("web_search", words)["query_template"] == "Lisbon ferry strikes"


def test_google_named_as_a_product_is_no_search():
    words = (
        "My jobs are all in my google calendar, it's all in google now. "
        "Search the web for the weather in Leeds and put it at the top."
    )
    assert config("web_search", words)["query_template"] == "the weather in Leeds"
    assert config("web_search", "Google each new supplier, then log it.")["query_template"] == (
        "each new supplier"
    )


def test_a_required_value_nobody_stated_is_listed_as_open():
    airtable = CATALOGUE["airtable"]
    made = config("airtable", "Put each claim in the table Returns.", "create_record")
    schema = logic.schema_for(airtable, "create_record")
    assert logic.open_fields(schema, made, "Put each claim in the table Returns.") == ["base"]
    assert logic.open_fields(schema, config("airtable", "", "create_record"), "") == [
        "base",
        "table",
    ]
    # A placeholder the user happened to say is theirs ("#general"); the message template
    # nobody described stays open.
    slack = CATALOGUE["slack"]
    said = "Post it to #general."
    assert logic.open_fields(slack, config("slack", said), said) == ["message_template"]
    assert logic.open_fields(slack, config("slack", ""), "") == ["channel", "message_template"]


def test_a_name_whose_words_sound_like_an_app_still_belongs_to_the_app_beside_it():
    # "strongly negative" reads as the sentiment step, but here it is the label's name.
    words = (
        "Score the tone of each comment, and add the label 'strongly negative' to the GitHub issue."
    )
    made = config("github", words, "create_issue", ("github", "sentiment"))
    assert made["labels"] == ["strongly negative"]


OPERATIONS = [
    (app.id, op.id) for app in load_operations().apps for op in (*app.events, *app.actions)
]


@pytest.mark.parametrize(("app", "operation"), OPERATIONS, ids=str)
def test_every_operations_heuristic_config_is_valid_with_or_without_clues(app, operation):
    schema = logic.schema_for(CATALOGUE[app], operation)
    for words in ("", "Every Monday at 9am post the total to #finance in the 'Q1' sheet."):
        made = config(app, words, operation)
        assert set(schema.get("required", ())) <= set(made)


def test_a_value_the_user_turned_down_is_not_used_even_where_it_was_said_first():
    words = "Post it to #general on Slack. Sorry, not #general, that is too noisy: use #ops-alerts."
    assert config("slack", words, "post_message")["channel"] == "#ops-alerts"


@pytest.mark.parametrize(
    ("words", "expression"),
    [
        ("Convert each price to dollars, using a rate of 1.1.", "price * 1.1"),
        (
            "Please convert the amount into pounds (take 0.86 as the exchange rate).",
            "amount * 0.86",
        ),
    ],
)
def test_a_conversion_rate_the_user_gave_multiplies_the_amount(words, expression):
    assert config("calculator", words, "calculate")["expression"] == expression


def test_an_email_with_no_recipient_stated_is_left_to_fill_in_not_given_a_phone_number():
    assert config("gmail", "Email me the weekly summary.", "send_email")["to"] == (
        "recipient to be chosen"
    )
    assert config("twilio_sms", "Text me the summary.", "send_sms")["to"].startswith("+")


@pytest.mark.parametrize(
    ("app", "operation", "words", "recipient"),
    [
        ("twilio_sms", "send_sms", "When an order ships on Shopify, text the customer the tracking link.", "{customer_phone}"),
        ("gmail", "send_email", "Email each applicant their interview slot.", "{applicant_email}"),
        ("outlook", "send_email", "Forward the signed lease to the tenant from Outlook.", "{tenant_email}"),
        ("twilio_sms", "send_sms", "Remind all volunteers by SMS the night before.", "{volunteer_phone}"),
    ],
)  # fmt: skip
def test_a_person_in_the_data_is_the_recipient_read_from_each_item(
    app, operation, words, recipient
):
    assert config(app, words, operation)["to"] == recipient


def test_the_user_their_team_or_someone_named_is_no_recipient_from_the_data():
    # Only the user knows these numbers and addresses: they stay open, so they are asked.
    assert config("twilio_sms", "Text me when it fails.", "send_sms")["to"] == "+10000000000"
    assert config("twilio_sms", "Text Maria when a booking comes in.", "send_sms")["to"] == (
        "+10000000000"
    )
    for words in ("Email the report to the team.", "Email the summary every Friday."):
        assert config("gmail", words, "send_email")["to"] == "recipient to be chosen"


def test_an_address_said_right_after_a_person_is_where_it_goes():
    words = (
        "Every Monday the new rows from the sheet 'Rota' go to our caretaker, Ben, at "
        "ben.hall@school.example. Send it from Outlook."
    )
    apps = ("google_sheets", "outlook")
    assert config("outlook", words, "send_email", apps)["to"] == "ben.hall@school.example"
    assert "ben.hall" not in str(config("google_sheets", words, None, apps))


def test_a_slip_for_the_apps_own_name_is_no_name_for_its_board():
    words = "Add a card to our trelo board 'Parents Evening' for each booking."
    assert config("trello", words)["board"] == "Parents Evening"


def test_a_name_made_of_words_that_also_name_apps_is_still_a_name():
    words = "The photos go into the dropbox folder Job Sheets; read them with OCR."
    assert config("dropbox", words, "new_file")["folder"] == "Job Sheets"
    # an app's own name still names nothing in it
    assert config("dropbox", "Watch our Dropbox folder for scans.", "new_file")["folder"] != (
        "Dropbox"
    )


def test_a_name_said_after_a_comma_belongs_to_the_thing_before_it():
    words = "Write each payment in our Google spreadsheet, the one called Subs 2025."
    assert config("google_sheets", words, "append_row")["spreadsheet"] == "Subs 2025"
