"""Gateway input rules and SSE framing."""

from __future__ import annotations

import json

import pytest

from schemas.envelope import SESSION_ID_PATTERN
from services.gateway import logic


def test_message_is_trimmed_and_accepted():
    assert logic.validate_message("  watch my Gmail  ") == "watch my Gmail"


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_message_is_refused_with_a_reason(text):
    with pytest.raises(logic.BadInput, match="empty"):
        logic.validate_message(text)


def test_message_over_8_kb_is_refused_with_the_limit():
    with pytest.raises(logic.BadInput, match="8192"):
        logic.validate_message("é" * 5000)  # 10,000 bytes of UTF-8 in 5,000 characters


def test_tab_and_newlines_inside_a_message_are_kept():
    assert (
        logic.validate_message("\nfirst line\r\n\tsecond line\n") == "first line\r\n\tsecond line"
    )


@pytest.mark.parametrize(
    ("text", "rule", "position"),
    [
        ("pay now\x00", "no-control-characters", 7),
        ("\x1fwatch Gmail", "no-control-characters", 0),  # trimming used to hide it
        ("watch Gmail\x85", "no-control-characters", 11),  # NEL: whitespace to str.strip()
        ("watch\x7fGmail", "no-control-characters", 5),
        ("send to \u202egnp.exe", "no-bidi-controls", 8),
        ("\u200fwatch Gmail", "no-bidi-controls", 0),
        ("watch \u061cGmail", "no-bidi-controls", 6),
        ("watch\u200bGmail", "no-zero-width-characters", 5),
        ("watch Gmail\u200d", "no-zero-width-characters", 11),
        ("\ufeffwatch Gmail", "no-zero-width-characters", 0),
        ("watch Gmail\u2060", "no-zero-width-characters", 11),
        ("watch Gmail\U000e0049\U000e0067\U000e006e", "no-tag-characters", 11),
        ("\U000e0001watch Gmail", "no-tag-characters", 0),
    ],
)
def test_hidden_characters_anywhere_are_refused_naming_the_character_and_rule(text, rule, position):
    with pytest.raises(logic.BadInput) as refused:
        logic.validate_message(text)
    message = str(refused.value)
    assert f"rule {rule}" in message and f"at position {position}" in message
    assert f"U+{ord(text[position]):04X}" in message


def test_session_ids_fit_the_envelope_and_differ():
    import re

    ids = {logic.new_session_id() for _ in range(100)}
    assert len(ids) == 100 and all(re.match(SESSION_ID_PATTERN, i) for i in ids)


def test_sse_frame_carries_id_type_and_json():
    frame = logic.sse_frame("17-0", "reply", {"text": "hi\nthere"})
    lines = frame.split("\n")
    assert lines[:2] == ["id: 17-0", "event: reply"]
    assert json.loads(lines[2].removeprefix("data: ")) == {"text": "hi\nthere"}
    assert frame.endswith("\n\n")


@pytest.mark.parametrize(
    ("header", "after", "start"),
    [
        (None, None, "0-0"),
        ("", " ", "0-0"),
        ("1700-3", None, "1700-3"),
        (None, "1700-3", "1700-3"),
        ("1700-3", "9-9", "1700-3"),  # the header wins, as a browser's reconnect sends it
        (f"{2**64 - 1}-{2**64 - 1}", None, f"{2**64 - 1}-{2**64 - 1}"),
    ],
)
def test_resume_point_follows_last_event_id_then_after(header, after, start):
    assert logic.resume_point(header, after) == start


@pytest.mark.parametrize(
    "cursor",
    [
        "99999999999999999999-0",  # the audit's: over 2**64 - 1, which Redis refuses
        f"0-{2**64}",
        "0-99999999999999999999",
        "1" * 5000 + "-0",  # longer than int() reads
        "\u0661\u0662-0",  # Arabic-Indic digits: \d takes them, Redis does not
        "1700 -3",
        "garbage",
        "1700",
        "-1-0",
    ],
)
def test_a_cursor_redis_would_refuse_is_bad_input_naming_its_source(cursor):
    with pytest.raises(logic.BadInput, match="Last-Event-ID must be an event id"):
        logic.resume_point(cursor)
    with pytest.raises(logic.BadInput, match="after must be an event id"):
        logic.resume_point(None, cursor)


def test_the_page_gets_every_catalogue_name_and_the_threshold():
    from catalog import load_catalogue

    catalogue = load_catalogue()
    view = logic.catalogue_view(catalogue, 0.8)
    assert view["threshold"] == 0.8
    assert view["entries"]["gmail"] == {"name": catalogue.get("gmail").name, "kind": "integration"}
    assert set(view["entries"]) == {e.id for e in catalogue.entries}
