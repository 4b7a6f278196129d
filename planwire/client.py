"""An async client for the gateway's HTTP API and its Server-Sent Events stream.

Used by `planwire demo`, `planwire eval` and the end-to-end tests: it talks to planwire
exactly as a user's front end would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx

KEEPALIVE_EXPIRY_S = 2.0  # below uvicorn's 5 s keep-alive timeout
RECONNECT_S = 0.2  # after a dropped stream
RETRY_CAP_S = 5.0  # longest wait between tries of a stream turned away for now


class StreamRefused(RuntimeError):
    """The gateway would not open the session's event stream (the status and its reason)."""


@dataclass
class StreamEvent:
    """One event read from the session's SSE stream."""

    id: str
    type: str
    data: dict[str, Any]


class SessionClient:
    """One conversation: post messages, read replies and progress from the stream."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # uvicorn closes a connection idle for 5 s; httpx would reuse it for up to 5 s too, so
        # a turn posted just then meets a closed socket (ReadError). Expire idle ones sooner.
        self.http = httpx.AsyncClient(
            base_url=base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, read=None),
            limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY_S),
            transport=transport,
        )
        self.timeout_s = timeout_s
        self.session_id = ""
        self.events: asyncio.Queue[StreamEvent | None] = asyncio.Queue()  # None: refused
        self.seen: list[StreamEvent] = []
        # The latest refusal of the stream while it is not open: 429/503 are tried again
        # (after Retry-After), anything else ends the stream and fails every wait.
        self.refused: StreamRefused | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> SessionClient:
        response = await self.http.post("/v1/sessions")
        response.raise_for_status()
        self.session_id = response.json()["session_id"]
        self._reader = asyncio.create_task(self._read_stream())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._reader:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        await self.http.aclose()

    async def send(self, text: str) -> str:
        """Post a message; returns its turn id."""
        response = await self.http.post(
            f"/v1/sessions/{self.session_id}/messages", json={"text": text}
        )
        response.raise_for_status()
        return str(response.json()["turn_id"])

    async def say(self, text: str) -> StreamEvent:
        """Post a message and wait for the reply to that turn."""
        turn_id = await self.send(text)
        return await self.wait_for(lambda e: e.type == "reply" and e.data.get("turn_id") == turn_id)

    async def wait_for(
        self, predicate: Callable[[StreamEvent], bool], timeout_s: float | None = None
    ) -> StreamEvent:
        """The next stream event matching `predicate` (earlier ones are kept in `seen`)."""
        try:
            async with asyncio.timeout(timeout_s or self.timeout_s):
                while True:
                    event = await self.events.get()
                    if event is None:
                        self.events.put_nowait(None)  # for the next wait too
                        raise self.refused or StreamRefused("the event stream ended")
                    if predicate(event):
                        return event
        except TimeoutError as exc:
            if self.refused is not None:  # waited on a stream the gateway kept turning away
                raise self.refused from exc
            raise

    async def state(self) -> dict[str, Any]:
        """The session as `GET /v1/sessions/{id}` returns it."""
        response = await self.http.get(f"/v1/sessions/{self.session_id}")
        response.raise_for_status()
        state: dict[str, Any] = response.json()
        return state

    async def workflow(self, workflow_id: str) -> dict[str, Any]:
        """The saved workflow document as `GET /v1/workflows/{id}` serves it."""
        response = await self.http.get(f"/v1/workflows/{workflow_id}")
        response.raise_for_status()
        document: dict[str, Any] = response.json()
        return document

    async def _read_stream(self) -> None:
        last_id = None
        tries = 0
        while True:  # reconnect after a dropped connection, resuming after the last id
            headers: dict[str, str] = {"Last-Event-ID": last_id} if last_id else {}
            delay = RECONNECT_S
            with contextlib.suppress(httpx.TransportError):
                async with self.http.stream(
                    "GET", f"/v1/sessions/{self.session_id}/events", headers=headers
                ) as resp:
                    if resp.status_code >= 400:
                        await resp.aread()
                        self.refused = StreamRefused(
                            f"the gateway refused the event stream: {resp.status_code} "
                            f"{_detail(resp)}"
                        )
                        if resp.status_code not in (429, 503):
                            await self.events.put(None)
                            return
                        tries += 1
                        delay = retry_delay(resp.headers.get("Retry-After"), tries)
                    else:
                        self.refused, tries = None, 0
                        async for event in parse_sse(resp.aiter_lines()):
                            last_id = event.id
                            self.seen.append(event)
                            await self.events.put(event)
            await asyncio.sleep(delay)


def retry_delay(retry_after: str | None, tries: int) -> float:
    """Seconds before trying a stream turned away for now: the gateway's Retry-After when it
    gives one, else doubling from `RECONNECT_S`; never more than `RETRY_CAP_S`."""
    try:
        wanted = float(retry_after) if retry_after is not None else None
    except ValueError:
        wanted = None
    if wanted is None:
        wanted = RECONNECT_S * 2 ** (tries - 1)
    return max(0.0, min(wanted, RETRY_CAP_S))


def _detail(response: httpx.Response) -> str:
    """The reason a refusal gives (FastAPI's `detail`), or its body."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    return str(body.get("detail", body)) if isinstance(body, dict) else str(body)[:200]


async def parse_sse(lines: AsyncIterator[str]) -> AsyncIterator[StreamEvent]:
    """Yield StreamEvents from SSE lines; comment lines (keep-alives) are skipped."""
    fields: dict[str, str] = {}
    async for line in lines:
        if not line:
            if "data" in fields:
                yield StreamEvent(
                    fields.get("id", ""), fields.get("event", "message"), json.loads(fields["data"])
                )
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
