"""Streamed replies in the model port: the pieces a caller sees, and the reply they add up to."""

from __future__ import annotations

import pytest

from shared.model import HeuristicModel
from shared.model.streaming import (
    SimulatedStreamingModel,
    can_stream,
    partial_text,
    streaming_to,
)

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}


@pytest.mark.parametrize(
    ("prefix", "shown"),
    [
        ("", ""),
        ('{"te', ""),
        ('{"text": "Which chan', "Which chan"),
        ('{"text": "Say \\"hi\\" to', 'Say "hi" to'),
        ('{"text": "Line\\', "Line"),  # an escape cut in half waits for its next piece
        ('{"text": "caf\\u00e', "caf"),
        ('{"text": "Done.", "other": "x"}', "Done."),
    ],
)
def test_the_text_so_far_is_read_from_a_half_written_json_object(prefix, shown):
    assert partial_text(prefix) == shown


async def collect(port, text: str) -> tuple[list[str], dict]:
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    with streaming_to(sink):
        result = await port.structured(
            "conversation", [], SCHEMA, fallback=lambda: {"text": text}, max_tokens=50
        )
    return pieces, result.data


async def test_the_heuristic_gives_a_streamed_call_its_reply_in_one_piece():
    pieces, data = await collect(HeuristicModel(), "Which Slack channel?")
    assert pieces == ["Which Slack channel?"] and data == {"text": "Which Slack channel?"}
    assert not can_stream(HeuristicModel())  # so the conversation does not ask it to


async def test_the_simulated_model_writes_the_reply_word_by_word_and_answers_it_whole():
    port = SimulatedStreamingModel(HeuristicModel(), first_token_s=0.0, token_s=0.0)
    pieces, data = await collect(port, "Added: Slack. Which channel?")
    assert pieces == ["Added:", " Slack.", " Which", " channel?"]
    assert "".join(pieces) == data["text"] and can_stream(port)


async def test_a_call_nobody_streams_sends_no_pieces_anywhere():
    port = SimulatedStreamingModel(HeuristicModel(), first_token_s=0.0, token_s=0.0)
    result = await port.structured("annotator", [], SCHEMA, fallback=lambda: {"text": "x"})
    assert result.data == {"text": "x"}
