"""`planwire load`: more streams than the cap and more turns than the rate, on loopback.

Not a timed test: it prints what happened, for docs/security.md. Two tenants each try to
open `streams` event streams (the gateway allows `cap` per tenant and `total` in all), then
tenant A posts `turns` messages at once (the rate allows `rate` a minute) while tenant B
plays a whole conversation to a saved workflow. A sampler reads Redis's `connected_clients`
throughout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections import Counter
from typing import TYPE_CHECKING, Any

import httpx
from redis.asyncio import Redis

from planwire.client import SessionClient, parse_sse

if TYPE_CHECKING:
    from planwire.stack import EmbeddedStack

KEYS = {  # 43 characters and more: the gateway refuses shorter keys
    "load-a": "load-key-" + "a" * 40,
    "load-b": "load-key-" + "b" * 40,
}
CONVERSATION = [
    "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out.",
    "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
]


def gateway_env(cap: int, total: int, rate: int) -> dict[str, str]:
    """The gateway settings of the run (the other services ignore them)."""
    return {
        "PLANWIRE_API_KEYS": json.dumps({key: tenant for tenant, key in KEYS.items()}),
        "PLANWIRE_MAX_STREAMS_PER_TENANT": str(cap),
        "PLANWIRE_MAX_STREAMS_TOTAL": str(total),
        "PLANWIRE_RATE_TURNS_PER_MIN": str(rate),
        "PLANWIRE_RATE_SESSIONS_PER_MIN": "100000",
    }


async def sample_connections(url: str, peak: list[int], stop: asyncio.Event) -> None:
    """Keep the highest `connected_clients` Redis reports (the sampler's own included)."""
    redis = Redis.from_url(url)
    try:
        while not stop.is_set():
            peak[0] = max(peak[0], (await redis.info("clients"))["connected_clients"])
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.1)
    finally:
        await redis.aclose()


async def open_streams(
    http: httpx.AsyncClient,
    count: int,
    exits: contextlib.AsyncExitStack,
    tally: Counter[int],
) -> list[tuple[str, httpx.Response]]:
    """Try `count` streams, each on a new session; the sessions whose stream opened."""
    admitted: list[tuple[str, httpx.Response]] = []
    for _ in range(count):
        session_id = (await http.post("/v1/sessions")).json()["session_id"]
        response = await exits.enter_async_context(
            http.stream("GET", f"/v1/sessions/{session_id}/events")
        )
        tally[response.status_code] += 1
        if response.status_code == 200:
            admitted.append((session_id, response))
    return admitted


async def reply_to(stream: httpx.Response, turn_ids: set[str], timeout_s: float) -> set[str]:
    """The turn ids among `turn_ids` that got a reply on the stream within the time."""
    answered: set[str] = set()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            async for event in parse_sse(stream.aiter_lines()):
                if event.type == "reply" and event.data.get("turn_id") in turn_ids:
                    answered.add(event.data["turn_id"])
                    if answered == turn_ids:
                        break
    return answered


async def flood_turns(
    http: httpx.AsyncClient, admitted: list[tuple[str, httpx.Response]], turns: int
) -> tuple[Counter[int], int, int]:
    """Post `turns` messages at once over the admitted sessions; (statuses, accepted, answered)."""
    targets = [admitted[i % len(admitted)] for i in range(turns)]
    posts = [
        http.post(f"/v1/sessions/{sid}/messages", json={"text": f"Also note item {i}, please."})
        for i, (sid, _) in enumerate(targets)
    ]
    responses = await asyncio.gather(*posts)
    statuses = Counter(r.status_code for r in responses)
    accepted: dict[str, set[str]] = {}
    for (sid, _), response in zip(targets, responses, strict=True):
        if response.status_code == 202:
            accepted.setdefault(sid, set()).add(response.json()["turn_id"])
    streams = dict(admitted)
    answered = await asyncio.gather(*(reply_to(streams[s], t, 60) for s, t in accepted.items()))
    return statuses, sum(map(len, accepted.values())), sum(map(len, answered))


async def complete_one(url: str) -> str:
    """Tenant B's conversation to a saved workflow; its final event type (or why not)."""
    from planwire.evaluate import MAX_NUDGES, NUDGE

    async with SessionClient(url, api_key=KEYS["load-b"], timeout_s=120) as session:
        try:
            for text in CONVERSATION:
                reply = await session.say(text)
            for _ in range(MAX_NUDGES):
                if reply.data["phase"] == "confirming":
                    break
                reply = await session.say(NUDGE)
            await session.say("Yes, that's everything. Please build it.")
            done = await session.wait_for(lambda e: e.type.startswith("workflow_"), 120)
        except TimeoutError:
            return f"timed out in phase {(await session.state())['phase']}"
    return done.type


async def drive(stack: EmbeddedStack, streams: int, turns: int) -> dict[str, Any]:
    peak, stop = [0], asyncio.Event()
    sampler = asyncio.create_task(sample_connections(stack.redis_url, peak, stop))
    await asyncio.sleep(0.3)
    idle = peak[0]
    stream_tally: Counter[int] = Counter()
    limits = httpx.Limits(max_connections=None)
    async with contextlib.AsyncExitStack() as exits:
        a, b = [
            await exits.enter_async_context(
                httpx.AsyncClient(
                    base_url=stack.gateway_url,
                    headers={"Authorization": f"Bearer {KEYS[t]}"},
                    timeout=httpx.Timeout(60, read=None),
                    limits=limits,
                )
            )
            for t in KEYS
        ]
        admitted_a = await open_streams(a, streams // 2, exits, stream_tally)
        async with contextlib.AsyncExitStack() as b_streams:  # closed again: B's conversation
            await open_streams(b, streams - streams // 2, b_streams, stream_tally)  # needs one
        completed = asyncio.create_task(complete_one(stack.gateway_url))
        turn_tally, accepted, answered = await flood_turns(a, admitted_a, turns)
        final = await completed
    stop.set()
    await sampler
    return {
        "streams": dict(stream_tally),
        "turns": dict(turn_tally),
        "accepted": accepted,
        "answered": answered,
        "conversation": final,
        "redis_idle": idle,
        "redis_peak": peak[0],
    }


def run_load(streams: int, turns: int, cap: int, total: int, rate: int) -> dict[str, Any]:
    """Start the stack with these limits, drive it, print and return the figures."""
    from planwire.stack import EmbeddedStack
    from shared.model.factory import ModelSettings

    os.environ.update(gateway_env(cap, total, rate))
    with EmbeddedStack(ModelSettings(model="heuristic")) as stack:
        figures = asyncio.run(drive(stack, streams, turns))
    s, t = figures["streams"], figures["turns"]
    print(
        f"streams tried {streams} (cap {cap}/tenant, {total} in all): "
        f"{s.get(200, 0)} opened, {s.get(429, 0)} got 429, {s.get(503, 0)} got 503"
    )
    print(
        f"turns posted at once {turns} (rate {rate}/min): {t.get(202, 0)} accepted, "
        f"{t.get(429, 0)} got 429; {figures['answered']}/{figures['accepted']} accepted turns answered"
    )
    print(f"tenant B's conversation during the flood: {figures['conversation']}")
    print(
        f"Redis connections: {figures['redis_idle']} before the load, "
        f"{figures['redis_peak']} at most during it (whole stack, sampler included)"
    )
    return figures
