"""Who is calling, over HTTP: the one tenant resolver every route uses, login and logout."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from services.gateway import auth

router = APIRouter(prefix="/auth")


def unauthorized(exc: auth.Unauthorized) -> HTTPException:
    return HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"})


async def tenant_of(request: Request) -> str:
    """The caller's tenant: every route resolves it here, from the bearer key or the cookie.
    A coroutine: FastAPI runs a plain `def` dependency on a worker thread."""
    authenticator: auth.Authenticator = request.app.state.auth
    try:
        return authenticator.tenant(
            request.headers.get("authorization"), request.cookies.get(auth.COOKIE_NAME)
        )
    except auth.Unauthorized as exc:
        raise unauthorized(exc) from exc


@router.post("/login", status_code=204)
async def login(request: Request) -> Response:
    """Trade a bearer key (never a cookie) for a short-lived signed cookie, for pages."""
    authenticator: auth.Authenticator = request.app.state.auth
    try:
        tenant = authenticator.tenant(request.headers.get("authorization"), None)
    except auth.Unauthorized as exc:
        raise unauthorized(exc) from exc
    response = Response(status_code=204)
    response.set_cookie(
        auth.COOKIE_NAME,
        authenticator.login_token(tenant),
        max_age=authenticator.token_ttl_s,
        httponly=True,
        samesite="strict",
        secure=cookie_secure(request),
        path="/",
    )
    return response


@router.post("/logout", status_code=204)
async def logout(request: Request) -> Response:
    """Clear the auth cookie (it stays valid until its expiry if a copy was kept)."""
    response = Response(status_code=204)
    response.delete_cookie(
        auth.COOKIE_NAME, httponly=True, samesite="strict", secure=cookie_secure(request), path="/"
    )
    return response


def cookie_secure(request: Request) -> bool:
    """`Secure` when configured so, or ("auto") when the request came over https."""
    setting = request.app.state.cookie_secure
    return request.url.scheme == "https" if setting == "auto" else setting == "true"
