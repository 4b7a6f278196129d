"""A model's value claims beyond the user's letters: a value in a config's form (a language's
code, a cron) that code's own reading of the quote gives, and the config field a value goes
in, named by the model and kept only when the app's operations have it. Times said in words
("half past eight") are read as the clock says them, by the rules too."""

from __future__ import annotations

import pytest

from catalog import load_catalogue
from catalog.values import claimed, clock, crons
from planwire import scripted
from schemas.turn import Notes, Stated
from services.annotator.logic import ModelView, fold
from services.specialist import logic

CATALOGUE = load_catalogue()


@pytest.mark.parametrize(
    ("said", "time"),
    [
        ("every weekday at half past eight", "30 8 * * 1-5"),
        ("every Monday at quarter to nine", "45 8 * * 1"),
        ("send it daily at seven", "0 7 * * *"),
        ("every Friday at eight thirty pm", "30 20 * * 5"),
        ("each day at nine o'clock", "0 9 * * *"),
        ("half eight every morning", "30 8 * * *"),
        ("every Sunday at quarter past 6 in the morning", "15 6 * * 0"),
        # A part of the day beside the time counts as it does for "at 6".
        ("every Friday evening at 6 o'clock", "0 18 * * 5"),
        ("every day at half past six in the evening", "30 18 * * *"),
        ("every day at 06:30 in the evening", "30 6 * * *"),  # a 24-hour clock
    ],
)
def test_a_time_said_in_words_is_read_as_the_clock_says_it(said, time):
    assert crons.cron(said) == time


@pytest.mark.parametrize(
    "said", ["at one point every week we check it", "half a day each week goes on it"]
)
def test_number_words_that_are_no_time_stay_words(said):
    assert clock.spoken(said) == said


def test_a_value_in_a_configs_form_holds_only_where_codes_reading_of_the_quote_gives_it():
    assert claimed.said("fa", "then translated into Arabic and into Farsi")
    assert claimed.said("30 8 * * 1-5", "Every weekday at half past eight, check the base")
    assert not claimed.said("de", "then translated into Arabic and into Farsi")
    assert not claimed.said("0 8 * * 1-5", "Every weekday at half past eight, check the base")
    assert not claimed.said("en", "and then post it")  # letters inside a word
    assert claimed.said("Viewings", "a shared calendar called Viewings")


def test_a_named_field_is_one_the_apps_operations_have():
    assert claimed.field_named("google_calendar", "calendar") == "calendar"
    assert claimed.field_named("google_drive", "Folder") == "folder"
    assert claimed.field_named("discord", "server") == "server"
    assert claimed.field_named("google_drive", "parent_directory") == ""
    # A message's text is never a field a value is put in by name.
    assert claimed.field_named("discord", "message_template") == ""


def test_the_annotator_keeps_a_checked_field_and_a_code_form_value():
    turns = [
        "When a new event shows up in our Google Calendar called Viewings, WhatsApp the vendor.",
        "Also translate the message into Farsi first.",
    ]
    views = [
        ModelView(
            stated=(
                ("google_calendar", "Viewings", "Google Calendar called Viewings", "calendar"),
                ("whatsapp", "Viewings", "Google Calendar called Viewings", "colour"),
            ),
        ),
        ModelView(stated=(("translator", "fa", "translate the message into Farsi", ""),)),
    ]
    notes, refused = Notes(), []
    for text, view in zip(turns, views, strict=True):
        folded = fold(notes, text, view, CATALOGUE, 0.8, None)
        notes, refused = folded.notes, refused + folded.overrides
    assert [(v.id, v.text, v.field) for v in notes.stated] == [
        ("google_calendar", "Viewings", "calendar"),
        ("whatsapp", "Viewings", ""),
        ("translator", "fa", ""),
    ]
    assert "model_value_field_unknown" in refused


def test_a_value_goes_to_the_field_the_model_named_where_code_would_not_place_it():
    entry = CATALOGUE["google_calendar"]
    words = "When a new event shows up in our Google Calendar called Viewings, WhatsApp them."
    unnamed = [Stated(id="google_calendar", text="Viewings", quote="called Viewings")]
    config, fired = logic.carry_stated({}, entry, unnamed, words, "new_event")
    assert fired == ["config_stated_value_without_field"]  # no required field is open
    named = [
        Stated(id="google_calendar", text="Viewings", quote="called Viewings", field="calendar")
    ]
    config, fired = logic.carry_stated({}, entry, named, words, "new_event")
    assert config == {"calendar": "Viewings"}
    logic.check(config, entry, "new_event")


def test_a_named_field_never_takes_the_place_of_another_stated_value():
    entry = CATALOGUE["translator"]
    stated = [
        Stated(id="translator", text="ar", quote="into Arabic and into Farsi"),
        Stated(
            id="translator", text="fa", quote="into Arabic and into Farsi", field="target_language"
        ),
    ]
    config, fired = logic.carry_stated({"target_language": "ar"}, entry, stated, "into Arabic")
    assert config["target_language"] == "ar"
    assert fired == ["config_stated_value_without_field"]


def test_a_feed_address_written_without_its_scheme_is_kept_as_a_web_address():
    entry = CATALOGUE["rss"]
    stated = [
        Stated(id="rss", text="lotusyoga.example/feed", quote="the feed, lotusyoga.example/feed")
    ]
    read = logic.heuristic_config(entry, "post new blog posts", "new_item")
    config, _ = logic.carry_stated(
        read, entry, stated, "the feed, lotusyoga.example/feed", "new_item"
    )
    assert config["feed_url"] == "https://lotusyoga.example/feed"
    logic.check(config, entry, "new_item")


def test_the_oracle_states_values_as_a_correct_model_would():
    case = {
        "id": "c",
        "turns": [
            "Our team books into a shared google calender called Viewings, book viewings there.",
            "Every weekday at half past eight text me on 07700900123 and translate it to Farsi.",
        ],
        "confirm": "yes",
        "expect": {
            "integrations": ["google_calendar", "twilio_sms"],
            "tools": ["scheduler", "translator"],
            "values": {
                "google_calendar": ["Viewings"],
                "twilio_sms": ["7700900123"],
                "scheduler": ["30 8 * * 1-5"],
                "translator": ["fa"],
            },
        },
    }
    script = scripted.oracle([case], CATALOGUE)
    first = scripted.as_json(script({}, case["turns"][0]))["values"]
    # The place that names it, and the field that quote speaks of (a slip of "calendar").
    assert [(v["id"], v["text"], v["field"]) for v in first] == [
        ("google_calendar", "Viewings", "calendar")
    ]
    assert "called Viewings" in first[0]["evidence"]
    second = {v["id"]: v["text"] for v in scripted.as_json(script({}, case["turns"][1]))["values"]}
    assert second == {"twilio_sms": "07700900123", "scheduler": "30 8 * * 1-5", "translator": "fa"}
