"""The audit's findings (issue 32) met over real HTTP: bad stream cursors."""

from __future__ import annotations

import asyncio
import json
import statistics
import time

import httpx
import pytest

from planwire.client import SessionClient

pytestmark = pytest.mark.e2e

# The audit's cursors (they passed `^\d+-\d+$` and failed Redis's XREAD), and kin.
BAD_CURSORS = [
    ("Last-Event-ID", "99999999999999999999-0"),
    ("after", "0-99999999999999999999"),
    ("Last-Event-ID", f"{2**64}-0"),
    ("after", "\u0661\u0662-0"),  # Arabic-Indic digits: `\d` takes them, Redis does not
]
UNDER_WAY = 5  # answers the attacker has had before the victim's turns under attack start
ATTACKS_AT_MOST = 2_000  # the attacker's loop is bounded, whatever happens to the victim
TURNS = 3  # the victim's turns before and during the attack (10 a minute on this gateway)


async def bad_cursor_requests(
    url: str, key: str, stop: asyncio.Event, under_way: asyncio.Event, answers: list
) -> None:
    """The attacker: opens its own session's stream with bad cursors until `stop`, noting
    each answer in `answers` as it comes; `UNDER_WAY` answers in, it sets `under_way`."""
    async with httpx.AsyncClient(
        base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30
    ) as http:
        session_id = (await http.post("/v1/sessions")).json()["session_id"]
        path = f"/v1/sessions/{session_id}/events"
        for n in range(ATTACKS_AT_MOST):
            if stop.is_set():
                break
            where, cursor = BAD_CURSORS[n % len(BAD_CURSORS)]
            options: dict = (
                {"headers": {where: cursor}} if where != "after" else {"params": {where: cursor}}
            )
            async with http.stream("GET", path, **options) as response:
                body = (await response.aread()).decode() if response.status_code >= 400 else ""
                answers.append((response.status_code, body))
            if len(answers) == UNDER_WAY:
                under_way.set()
            await asyncio.sleep(0.01)  # about the audit's rate and more: tens a second


async def reply_times(session: SessionClient, label: str) -> list[float]:
    """Seconds from posting each of `TURNS` messages to its reply on the stream."""
    times = []
    for n in range(TURNS):
        started = time.monotonic()
        await session.say(f"{label} note {n}: tell me more about the options")
        times.append(time.monotonic() - started)
    return times


async def test_bad_stream_cursors_are_a_400_and_never_slow_another_tenants_stream(secured):
    """The audit saw another tenant's replies go from 0.08 s to 0.60 s median under about ten
    such requests a second, each failing the gateway's one shared read for every stream."""
    async with SessionClient(secured.url, api_key=secured.keys["victim"]) as victim:
        before = await reply_times(victim, "before")
        stop, under_way, answers = asyncio.Event(), asyncio.Event(), []
        attack = asyncio.create_task(
            bad_cursor_requests(secured.url, secured.keys["attacker"], stop, under_way, answers)
        )
        try:
            async with asyncio.timeout(60):
                await under_way.wait()
            during = await reply_times(victim, "during")
            assert not attack.done(), "the attack ended before the victim's last turn"
        finally:
            stop.set()
            await attack
    print(f"victim reply s before {before}, during {during}; attacker requests {len(answers)}")
    assert {status for status, _ in answers} == {400}, answers[:5]
    assert all("must be an event id" in json.loads(body)["detail"] for _, body in answers)
    # Generous: only a shared read failing again and again (a pause of 1 s each) gets near it.
    assert statistics.median(during) <= 3 * statistics.median(before) + 0.5, (before, during)
    assert "shared outbox read failed" not in secured.log.read_text(errors="replace")
