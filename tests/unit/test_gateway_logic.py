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
    ("header", "start"), [(None, "0-0"), ("", "0-0"), ("1700-3", "1700-3"), ("garbage", "0-0")]
)
def test_resume_point_follows_last_event_id(header, start):
    assert logic.resume_point(header) == start


def test_the_page_gets_every_catalogue_name_and_the_threshold():
    from catalog import load_catalogue

    catalogue = load_catalogue()
    view = logic.catalogue_view(catalogue, 0.8)
    assert view["threshold"] == 0.8
    assert view["entries"]["gmail"] == {"name": catalogue.get("gmail").name, "kind": "integration"}
    assert set(view["entries"]) == {e.id for e in catalogue.entries}
