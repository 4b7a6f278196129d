"""Bounds the gateway puts on every caller: body size, request rates, open streams.

The body limit is ASGI middleware, so an oversized body is refused with 413 before any of it
is parsed (and, when Content-Length tells, before any of it is read). Stream slots are
counted per gateway process; rate windows live in Redis so every replica shares them
(`SessionStore.hit`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class TooLarge(HTTPException):
    """The request body passed the limit while it was being read (FastAPI answers 413)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"request body over {max_bytes} bytes")


def error_response(
    status: int, detail: str, headers: dict[str, str] | None = None
) -> tuple[Message, Message]:
    """An ASGI start message and body for a JSON error (used below the FastAPI layer)."""
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    return {"type": "http.response.start", "status": status, "headers": raw}, {
        "type": "http.response.body",
        "body": body,
    }


class BodyLimit:
    """413 for a body over `max_bytes`, whether declared in Content-Length or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.max_bytes:
            return await self._refuse(send)
        seen, started = 0, False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise TooLarge(self.max_bytes)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        start, body = error_response(413, f"request body over {self.max_bytes} bytes")
        await send(start)
        await send(body)


@dataclass(frozen=True)
class Limits:
    """Per-tenant request budgets (settings `PLANWIRE_RATE_*`, `PLANWIRE_QUOTA_*`)."""

    sessions_per_min: int
    sessions_per_day: int
    turns_per_min: int
    idem_ttl_s: int


@dataclass(frozen=True)
class Refusal:
    """Why a request is turned away for now: status (429/503), message, seconds to wait."""

    status: int
    detail: str
    retry_after_s: int


class StreamSlots:
    """Open event streams on this process, capped per tenant and overall."""

    def __init__(self, per_tenant: int, total: int) -> None:
        self.per_tenant, self.total = per_tenant, total
        self.open: Counter[str] = Counter()

    def refusal(self, tenant: str) -> Refusal | None:
        """Why one more stream for `tenant` may not open now, or None."""
        if sum(self.open.values()) >= self.total:
            return Refusal(503, f"the gateway holds {self.total} streams, its limit", 5)
        if self.open[tenant] >= self.per_tenant:
            return Refusal(429, f"{self.per_tenant} streams already open for this tenant", 5)
        return None

    def take(self, tenant: str) -> Callable[[], None]:
        """Count one more open stream; returns its release (safe to call twice)."""
        self.open[tenant] += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.open[tenant] -= 1
                if not self.open[tenant]:
                    del self.open[tenant]

        return release


def window(now: float, period_s: int) -> tuple[int, int]:
    """The fixed window `now` falls in, and the seconds left until it ends."""
    index = int(now // period_s)
    return index, max(1, int((index + 1) * period_s - now + 0.999))
