"""Who is calling, over HTTP: the one tenant resolver every route uses, login and logout."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from services.gateway import auth
from services.gateway.metrics import REFUSED
from services.gateway.models import errors
from services.gateway.throttle import FailedLogins

router = APIRouter(prefix="/auth", responses=errors(421))


def unauthorized(exc: auth.Unauthorized) -> HTTPException:
    return HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"})


async def tenant_of(request: Request) -> str:
    """The caller's tenant: every route resolves it here, from the bearer key or the cookie.
    A coroutine: FastAPI runs a plain `def` dependency on a worker thread."""
    return await checked_tenant(request, request.cookies.get(auth.COOKIE_NAME))


async def checked_tenant(request: Request, cookie: str | None) -> str:
    """The tenant the request's credential proves; 401 when it proves none, 429 while its
    address is over its failed-login budget (services/gateway/throttle.py)."""
    authenticator: auth.Authenticator = request.app.state.auth
    if authenticator.anonymous:
        return auth.ANONYMOUS_TENANT
    authorization = request.headers.get("authorization")
    presented = authorization is not None or bool(cookie)
    logins: FailedLogins = request.app.state.failed_logins
    client = request.client.host if request.client else "unknown"
    if presented and (wait := await logins.wait_s(client)) is not None:
        REFUSED.labels("429").inc()
        raise HTTPException(
            429,
            f"too many failed logins from this address; try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )
    try:
        return authenticator.tenant(authorization, cookie)
    except auth.Unauthorized as exc:
        if presented:
            await logins.failed(client)
        raise unauthorized(exc) from exc


@router.post(
    "/login",
    status_code=204,
    responses=errors(401, 429, 503, e401="No bearer key, or one this gateway does not know.")
    | {204: {"description": "Signed in: the cookie is set."}},
)
async def login(request: Request) -> Response:
    """Trade a bearer key (never a cookie) for a short-lived signed cookie, for pages."""
    authenticator: auth.Authenticator = request.app.state.auth
    tenant = await checked_tenant(request, None)
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


@router.post(
    "/logout",
    status_code=204,
    responses={204: {"description": "Signed out: the cookie is cleared."}},
)
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
