"""Which `Host` the gateway answers to: a guard against DNS rebinding.

A keyless gateway on loopback trusts whoever can reach it, which a web page can, by
rebinding its own name to 127.0.0.1: the browser then sends that page's requests to the
gateway under the page's name (`Host: evil.example:8000`). Answering only the names a
loopback address goes by (`localhost`, `127.0.0.1`, `[::1]`, any port) turns those away.

`PLANWIRE_ALLOWED_HOSTS` (a JSON list of names, port left out) replaces that default; `["*"]`
answers any name. With API keys, or an anonymous gateway deliberately opened beyond
loopback, the default is any name: a rebound page has no key, and the browser keeps the
cookie for the gateway's own name. The probes answer whatever the `Host`, as an orchestrator
calls them by address.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from services.gateway.limits import error_response

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
ANY = "*"
PROBES = ("/health", "/ready")


def allowed_hosts(configured: list[str], keyless_loopback: bool) -> frozenset[str]:
    """The names to answer: the configured ones, else the loopback names for a keyless
    gateway on loopback, else any (`ANY`)."""
    if configured:
        return frozenset(name.strip().lower() for name in configured)
    return frozenset(LOOPBACK_NAMES if keyless_loopback else (ANY,))


def host_name(header: str) -> str:
    """`Host` without its port, lower-cased: `[::1]:8000` -> `[::1]`, `a.b:80` -> `a.b`."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def host_allowed(header: str | None, allowed: frozenset[str]) -> bool:
    """Whether a request with this `Host` header is answered."""
    return ANY in allowed or (header is not None and host_name(header) in allowed)


class HostGuard:
    """421 Misdirected Request, with a JSON `detail`, for a `Host` not allowed."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str]) -> None:
        self.app, self.allowed = app, allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in PROBES:
            header = dict(scope["headers"]).get(b"host")
            if not host_allowed(header.decode("latin-1") if header else None, self.allowed):
                start, body = error_response(
                    421, "this gateway does not answer to that Host (PLANWIRE_ALLOWED_HOSTS)"
                )
                await send(start)
                await send(body)
                return
        await self.app(scope, receive, send)
