"""The session client against a gateway that turns its event stream away: it says why."""

from __future__ import annotations

import json

import httpx
import pytest

from planwire.client import RETRY_CAP_S, SessionClient, StreamRefused, retry_delay


def gateway(stream_answers: list[tuple[int, dict[str, str], bytes]]) -> httpx.MockTransport:
    """Opens session "s1"; each stream request gets the next of `stream_answers`, then the last."""
    calls: list[int] = []

    def handle(request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/v1/sessions":
            return httpx.Response(201, json={"session_id": "s1"})
        if request.url.path == "/v1/sessions/s1/events":
            calls.append(1)
            status, headers, body = stream_answers[min(len(calls), len(stream_answers)) - 1]
            return httpx.Response(status, headers=headers, content=body)
        return httpx.Response(404, json={"detail": "not here"})

    transport = httpx.MockTransport(handle)
    transport.calls = calls  # type: ignore[attr-defined]
    return transport


def refusal(status: int, detail: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    return status, headers, json.dumps({"detail": detail}).encode()


def reply(turn: str) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps({"turn_id": turn, "text": "hello"})
    return (
        200,
        {"content-type": "text/event-stream"},
        f"id: 1\nevent: reply\ndata: {data}\n\n".encode(),
    )


async def test_a_stream_refused_for_good_fails_the_wait_at_once_with_the_reason():
    transport = gateway([refusal(403, "this session belongs to another tenant")])
    async with SessionClient("http://gw", timeout_s=30, transport=transport) as client:
        with pytest.raises(StreamRefused, match="403 this session belongs to another tenant"):
            await client.wait_for(lambda e: True)
        with pytest.raises(StreamRefused):  # and every later wait too
            await client.wait_for(lambda e: True)
    assert len(transport.calls) == 1  # type: ignore[attr-defined]


async def test_a_stream_refused_for_now_is_tried_again_and_then_read():
    transport = gateway(
        [
            refusal(429, "20 streams already open for this tenant", **{"Retry-After": "0"}),
            reply("t1"),
        ]
    )
    async with SessionClient("http://gw", timeout_s=5, transport=transport) as client:
        event = await client.wait_for(lambda e: e.type == "reply")
        assert event.data["turn_id"] == "t1"


async def test_a_wait_that_runs_out_while_refused_says_why():
    transport = gateway(
        [refusal(429, "20 streams already open for this tenant", **{"Retry-After": "0"})]
    )
    async with SessionClient("http://gw", timeout_s=0.5, transport=transport) as client:
        with pytest.raises(StreamRefused, match="429 20 streams already open"):
            await client.wait_for(lambda e: True)
    assert len(transport.calls) >= 2  # type: ignore[attr-defined]


def test_retries_follow_retry_after_else_back_off_within_a_cap():
    assert retry_delay("3", 1) == 3.0
    assert retry_delay("600", 1) == RETRY_CAP_S
    assert retry_delay(None, 1) < retry_delay(None, 2) < retry_delay(None, 3)
    assert retry_delay("soon", 20) == RETRY_CAP_S
