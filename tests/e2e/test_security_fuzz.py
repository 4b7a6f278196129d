"""1,000 random and malformed requests against the running keyed gateway, over real HTTP.

Every request gets an answer below 500, every 4xx carries a JSON `detail`, and afterwards a
normal conversation still completes. The secured gateway's low limits (tests/e2e/conftest.py)
also keep the fuzz from flooding the pipeline: it can start only a few real turns a minute.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planwire.client import SessionClient
from services.gateway import auth
from tests.e2e.gathering import gather

pytestmark = pytest.mark.e2e

EXAMPLES = 1_000
SEEN: Counter = Counter()
HEADER_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
    max_size=80,
)
WILD_TEXT = st.text(max_size=300)  # any unicode: controls, bidi, surrogates-free planes
IDS = st.one_of(
    st.just("OWN"),
    st.just("OTHER"),
    st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=1, max_size=100),
    WILD_TEXT.filter(bool),
)
PATHS = st.sampled_from(
    [
        "/v1/sessions",
        "/v1/sessions/{id}",
        "/v1/sessions/{id}/messages",
        "/v1/sessions/{id}/events",
        "/v1/workflows/{id}",
        "/auth/login",
        "/auth/logout",
        "/v1/{id}",
        "/{id}",
    ]
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | WILD_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(WILD_TEXT, inner, max_size=4),
    max_leaves=10,
)
BODIES = st.one_of(
    st.none(),
    st.binary(max_size=2000),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"text": WILD_TEXT}).map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"text": JSON_VALUES}).map(lambda v: json.dumps(v).encode()),
    st.integers(16_000, 40_000).map(lambda n: b'{"text": "' + b"y" * n + b'"}'),
)
AUTHS = st.sampled_from(["valid", "none", "wrong", "garbage", "cookie", "forged", "expired"])


@pytest.fixture(scope="module")
def targets(secured):
    """A session of the fuzzing tenant and one of another tenant.

    The other tenant is one no other test uses: the security tests spend their tenants'
    session rate on purpose.
    """
    ids = {}
    for tenant, name in (("fuzz", "OWN"), ("bystander", "OTHER")):
        response = httpx.post(f"{secured.url}/v1/sessions", headers=secured.headers(tenant))
        assert response.status_code == 201, response.text
        ids[name] = response.json()["session_id"]
    return ids


def auth_headers(secured, kind: str, header_text: str) -> tuple[dict, dict]:
    """(headers, cookies) for one way of (not) authenticating."""
    cookie = {
        "cookie": auth.sign_token(secured.secret, "fuzz", 60),
        "forged": auth.sign_token(b"x", "fuzz", 60),
        "expired": auth.sign_token(secured.secret, "fuzz", 60, now=0),
        "garbage": header_text,
    }
    headers = {
        "valid": secured.headers("fuzz"),
        "wrong": {"Authorization": f"Bearer {header_text}"},
        "garbage": {"Authorization": header_text},
    }
    cookies = {auth.COOKIE_NAME: cookie[kind]} if kind in cookie else {}
    return headers.get(kind, {}), cookies


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]),
    path=PATHS,
    session=IDS,
    body=BODIES,
    auth_kind=AUTHS,
    header_text=HEADER_TEXT,
    extra=st.dictionaries(
        st.sampled_from(
            [
                "Last-Event-ID",
                "Idempotency-Key",
                "Content-Type",
                "Accept",
                "Cookie",
                "X-Forwarded-Proto",
            ]
        ),
        HEADER_TEXT,
        max_size=4,
    ),
)
def test_random_requests_get_a_json_4xx_never_a_5xx(
    secured, targets, method, path, session, body, auth_kind, header_text, extra
):
    ident = targets.get(session, session)
    url = secured.url + path.replace("{id}", quote(ident, safe=""))
    headers, cookies = auth_headers(secured, auth_kind, header_text)
    if cookies:
        extra["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    # Raw latin-1 bytes: httpx would refuse non-ASCII text, and the server must meet it too.
    headers = {k: v.strip().encode("latin-1") for k, v in {**extra, **headers}.items()}
    try:
        with (
            httpx.Client(timeout=30) as http,
            http.stream(method, url, content=body, headers=headers) as response,
        ):
            status = response.status_code
            text = response.read().decode(errors="replace") if status >= 400 else ""
    except (httpx.LocalProtocolError, UnicodeEncodeError):
        SEEN["not sendable"] += 1  # the client refused to put it on the wire
        return
    SEEN[status // 100 * 100] += 1
    assert status < 500, (method, path, status, text[:300])
    if status >= 400:
        assert response.headers["content-type"].startswith("application/json"), text[:300]
        assert json.loads(text)["detail"], text[:300]


async def test_after_the_fuzz_a_normal_session_still_completes(secured):
    print(f"fuzz outcomes: {dict(SEEN)}")
    assert sum(SEEN.values()) >= EXAMPLES and SEEN[400] >= EXAMPLES * 0.8, SEEN
    async with SessionClient(secured.url, api_key=secured.keys["beta"]) as session:
        state, _ = await gather(
            session,
            [
                "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out.",
                "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
            ],
        )
        assert state["phase"] == "confirming"
        await session.say("Yes, that's everything. Please build it.")
        done = await session.wait_for(lambda e: e.type == "workflow_completed", timeout_s=120)
    assert done.data["workflow_id"]
