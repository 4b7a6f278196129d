"""`planwire chaos`'s sessions: clients that retry like a user's front end, and what they saw.

A `RetryingSession` sends a request that met a dead gateway again with the same
Idempotency-Key (waiting as the event stream does), and its stream reconnects from the last
id it saw. `play_all` plays every case at once, each its own session, and reads what
happened to each once all are done: accepted turns, replies per turn and completions (from
the stream), the saved workflow and the artifact versions per step (from Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any

import httpx
from redis.asyncio import Redis

from planwire.chaos import SessionRun, comparable
from planwire.client import SessionClient, retry_delay
from planwire.evaluate import MAX_NUDGES, NUDGE, Case
from planwire.stack import EmbeddedStack
from state import artifacts
from state import plan as plan_log


class RetryingSession(SessionClient):
    """A SessionClient whose requests survive a dead gateway: retried with the same key."""

    def __init__(self, base_url: str, key_prefix: str, timeout_s: float) -> None:
        super().__init__(base_url, timeout_s=timeout_s)
        self.key_prefix, self.posts = key_prefix, 0
        self.sent: list[str] = []

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send until the gateway answers with anything but a 5xx (or the timeout passes).

        Between tries it waits as the event stream does: the gateway's Retry-After, else
        doubling from 0.2 s to 5 s. A fixed short wait made 200 sessions a flood that kept a
        restarted gateway from ever answering its readiness probe.
        """
        async with asyncio.timeout(self.timeout_s):
            for tries in itertools.count(1):
                retry_after = None
                with contextlib.suppress(httpx.TransportError):
                    response = await self.http.request(method, path, **kwargs)
                    if response.status_code < 500:
                        response.raise_for_status()
                        return response
                    retry_after = response.headers.get("Retry-After")
                await asyncio.sleep(retry_delay(retry_after, tries))
        raise AssertionError("unreachable")  # itertools.count never ends

    async def __aenter__(self) -> RetryingSession:
        headers = {"Idempotency-Key": f"{self.key_prefix}-session"}
        response = await self.request("POST", "/v1/sessions", headers=headers)
        self.session_id = response.json()["session_id"]
        self._reader = asyncio.create_task(self._read_stream())
        return self

    async def send(self, text: str) -> str:
        """Post a message once, however many times the request has to be sent."""
        self.posts += 1
        headers = {"Idempotency-Key": f"{self.key_prefix}-turn-{self.posts}"}
        path = f"/v1/sessions/{self.session_id}/messages"
        turn_id = str(
            (await self.request("POST", path, json={"text": text}, headers=headers)).json()[
                "turn_id"
            ]
        )
        self.sent.append(turn_id)
        return turn_id

    async def state(self) -> dict[str, Any]:
        """The session's state, read through restarts."""
        state: dict[str, Any] = (
            await self.request("GET", f"/v1/sessions/{self.session_id}")
        ).json()
        return state


async def play(session: RetryingSession, case: Case) -> None:
    """The eval's conversation (turns, nudges while not confirming, the confirmation)."""
    for text in case.turns:
        await session.say(text)
    for _ in range(MAX_NUDGES):
        if (await session.state())["phase"] == "confirming":
            break
        await session.say(NUDGE)
    await session.say(case.confirm)
    final = await session.wait_for(lambda e: e.type in ("workflow_completed", "workflow_failed"))
    if final.type != "workflow_completed":
        raise RuntimeError(f"workflow failed: {final.data.get('reason')}")


def observed(session: RetryingSession, case: Case, error: str | None) -> SessionRun:
    """What the client saw: accepted turns, replies per turn, completions (distinct events)."""
    events = {e.id: e for e in session.seen}.values()
    run = SessionRun(case.id, sent=list(session.sent), error=error, session_id=session.session_id)
    for event in events:
        if event.type == "reply":
            turn = str(event.data.get("turn_id"))
            run.replies[turn] = run.replies.get(turn, 0) + 1
        run.completions += event.type == "workflow_completed"
    return run


async def finish(run: SessionRun, session: RetryingSession, redis: Redis) -> SessionRun:
    """Add the saved workflow and the artifact versions per step from Redis."""
    with contextlib.suppress(Exception):
        state = await session.state()
        if state.get("workflow_id"):
            document = (
                await session.request("GET", f"/v1/workflows/{state['workflow_id']}")
            ).json()
            run.workflow = comparable(document)
    logged = await plan_log.read(redis, session.session_id)
    for node in logged.nodes if logged else []:
        stored = await artifacts.versions(redis, session.session_id, node.node_id)
        written = [v for v in stored if not v.get("edited_by_user")]
        plan_id = logged.plan_id if logged else None
        run.step_effects[node.node_id] = sum(v.get("plan_id") == plan_id for v in written)
    return run


async def session_run(
    stack: EmbeddedStack,
    case: Case,
    key: str,
    timeout_s: float,
    played: asyncio.Event,
    done: asyncio.Event,
) -> SessionRun:
    """Play one case and, once every session is done, read what happened to it."""
    session = RetryingSession(stack.gateway_url, key, timeout_s)
    error = None
    async with session:
        try:
            await play(session, case)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        finally:
            played.set()
        await done.wait()  # late duplicates arrive on the stream until the very end
        async with Redis.from_url(stack.redis_url) as redis:
            return await finish(observed(session, case, error), session, redis)


async def play_all(
    stack: EmbeddedStack,
    cases: list[Case],
    prefix: str,
    timeout_s: float,
    *,
    also: asyncio.Task[Any] | None = None,
    settle_s: float = 0.0,
) -> list[SessionRun]:
    """Every case at once, each its own session; figures are read once all have ended
    (and `also`, the kill plan, is over) and `settle_s` more seconds have passed."""
    done = asyncio.Event()
    played = [asyncio.Event() for _ in cases]
    tasks = [
        asyncio.create_task(session_run(stack, c, f"{prefix}-{i}", timeout_s, p, done))
        for i, (c, p) in enumerate(zip(cases, played, strict=True))
    ]
    await asyncio.gather(*(p.wait() for p in played), *([also] if also else []))
    await asyncio.sleep(settle_s)
    done.set()
    return list(await asyncio.gather(*tasks))
