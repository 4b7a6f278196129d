"""Browser sign-in: a bearer key exchanged once for a signed HttpOnly cookie.

EventSource cannot send an Authorization header, and a key in a URL ends up in logs and
history. POST /auth/login with `Authorization: Bearer <key>` answers 204 and sets
`planwire_auth` (HttpOnly, SameSite=Strict): the tenant and an expiry, signed with a
per-process secret; every route accepts that cookie as well as the bearer header.
A minimal version written for the web page; the `gateway` branch's hardened access module
(hashed keys, shared secret, constant-time comparison of keys) supersedes it when merged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time

from fastapi import APIRouter, Header, HTTPException, Request, Response

COOKIE = "planwire_auth"
TTL_S = 8 * 3600
SECRET = secrets.token_bytes(32)

router = APIRouter(prefix="/auth")


def sign(tenant: str, now: float, secret: bytes = SECRET, ttl_s: int = TTL_S) -> str:
    """`tenant.expiry.signature`, URL-safe."""
    body = base64.urlsafe_b64encode(tenant.encode()).decode().rstrip("=")
    payload = f"{body}.{int(now) + ttl_s}"
    mac = hmac.new(secret, payload.encode(), hashlib.sha256).hexdigest()
    return f"{payload}.{mac}"


def verify(token: str | None, now: float, secret: bytes = SECRET) -> str | None:
    """The tenant a cookie names, or None when it is forged, malformed or expired."""
    try:
        body, expiry, mac = (token or "").split(".")
        wanted = hmac.new(secret, f"{body}.{expiry}".encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, wanted) or int(expiry) < now:
            return None
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    except ValueError:
        return None


def bearer_tenant(keys: dict[str, str], authorization: str | None) -> str | None:
    """The tenant of a bearer key, compared in constant time."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    found = None
    for key, tenant in keys.items():
        if hmac.compare_digest(key.encode(), token.encode()):
            found = tenant
    return found


@router.post("/login", status_code=204)
async def login(
    request: Request, response: Response, authorization: str | None = Header(default=None)
) -> None:
    """Exchange the bearer key for the cookie (open access needs none: 204 all the same)."""
    keys: dict[str, str] = request.app.state.api_keys
    if not keys:
        return
    tenant = bearer_tenant(keys, authorization)
    if tenant is None:
        raise HTTPException(401, "missing or unknown API key")
    response.set_cookie(
        COOKIE,
        sign(tenant, time.time()),
        max_age=TTL_S,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


@router.post("/logout", status_code=204)
async def logout(response: Response) -> None:
    """Forget the cookie."""
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
