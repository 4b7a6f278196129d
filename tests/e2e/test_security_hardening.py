"""The audit's findings (issue 32) met over real HTTP: bad stream cursors, Host names, failed
logins, short keys and `planwire keys new`.

The login throttle counts per client address in the stack's one Valkey, so the tests that
present wrong credentials on purpose send them from addresses of their own on loopback
(127.0.0.2, 127.0.0.3): the other security tests' wrong keys, from 127.0.0.1, count apart.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import httpx
import pytest

from planwire.client import SessionClient
from planwire.specs import ServiceSpec
from planwire.stack import ROOT
from tests.e2e.conftest import SECURED_ENV

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


async def test_a_keyless_loopback_gateway_answers_only_loopback_host_names(stack):
    url = stack.gateway_url
    port = url.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "localhost"):
            response = await http.get("/v1/sessions", headers={"Host": host})
            assert response.status_code == 200, (host, response.text)
        # A page whose name was rebound to 127.0.0.1 sends its own name.
        for host in (f"evil.example:{port}", "rebind.test", f"127.0.0.1.nip.io:{port}"):
            response = await http.get("/v1/sessions", headers={"Host": host})
            assert response.status_code == 421, (host, response.text)
            assert "PLANWIRE_ALLOWED_HOSTS" in response.json()["detail"]
        assert (await http.get("/health", headers={"Host": "rebind.test"})).status_code == 204


@dataclass(frozen=True)
class StrictGateway:
    """A keyed gateway with a low failed-login budget, a Host list and a CLI-made key."""

    url: str
    key: str
    stored: str

    def client(self, address: str, key: str | None = None) -> httpx.AsyncClient:
        """A client sending from `address` (on loopback) under the allowed Host name."""
        headers = {"Host": "planwire.test"} | ({"Authorization": f"Bearer {key}"} if key else {})
        transport = httpx.AsyncHTTPTransport(local_address=address)
        return httpx.AsyncClient(base_url=self.url, headers=headers, transport=transport)


FAILURES_ALLOWED = 5


@pytest.fixture(scope="module")
def strict(stack) -> StrictGateway:
    """Its one key comes from `planwire keys new`, configured in its stored form only."""
    printed = subprocess.run(
        [sys.executable, "-m", "planwire", "keys", "new", "strict"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    lines = dict(line.split(": ", 1) for line in printed.splitlines())
    key, stored = lines["key"], lines["stored"]
    assert json.loads(lines["PLANWIRE_API_KEYS entry"]) == {stored: "strict"}
    env = {
        **SECURED_ENV,
        "PLANWIRE_API_KEYS": json.dumps({stored: "strict"}),
        "PLANWIRE_AUTH_FAILURES_PER_WINDOW": str(FAILURES_ALLOWED),
        "PLANWIRE_AUTH_FAILURE_WINDOW_S": "3600",  # no window ends in the middle of a test
        "PLANWIRE_ALLOWED_HOSTS": '["planwire.test"]',
    }
    url = stack.add_service(ServiceSpec("gateway-strict", "services.gateway.main", env=env))
    return StrictGateway(url, key, stored)


async def test_a_key_from_planwire_keys_new_works_from_its_stored_form_alone(strict):
    assert len(strict.key) >= 43 and strict.key not in strict.stored
    async with strict.client("127.0.0.3", strict.key) as http:
        assert (await http.post("/v1/sessions")).status_code == 201
        assert (await http.post("/auth/login")).status_code == 204


async def test_configured_host_names_replace_the_loopback_default(strict):
    async with strict.client("127.0.0.3", strict.key) as http:
        assert (await http.get("/v1/sessions")).status_code == 200
        elsewhere = await http.get("/v1/sessions", headers={"Host": "127.0.0.1"})
        assert elsewhere.status_code == 421


async def test_failed_logins_from_one_address_get_429_and_the_tenant_elsewhere_does_not(strict):
    statuses = []
    async with strict.client("127.0.0.2") as attacker:
        # Bounded: even a window ending mid-loop gives a 429 within twice the budget.
        for n in range(2 * FAILURES_ALLOWED + 1):
            wrong = {"Authorization": f"Bearer guess-{n}-" + "x" * 40}
            statuses.append((await attacker.get("/v1/sessions", headers=wrong)).status_code)
            if statuses[-1] == 429:
                break
        assert statuses[:FAILURES_ALLOWED] == [401] * FAILURES_ALLOWED and statuses[-1] == 429
        right = {"Authorization": f"Bearer {strict.key}"}
        refused = await attacker.get("/v1/sessions", headers=right)  # not even checked
        login = await attacker.post("/auth/login", headers=right)
    assert refused.status_code == login.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 3600
    assert "too many failed logins" in refused.json()["detail"]
    async with strict.client("127.0.0.3", strict.key) as tenant:
        assert (await tenant.get("/v1/sessions")).status_code == 200


def test_a_key_too_short_refuses_the_start_with_a_clear_message(stack):
    short = "tiny-key-1"
    env = {**os.environ, **stack.env, "PLANWIRE_HTTP_PORT": "0"}
    env["PLANWIRE_API_KEYS"] = json.dumps({short: "acme"})
    result = subprocess.run(
        [sys.executable, "-m", "services.gateway.main"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode != 0
    assert "the key of tenant 'acme' is 10 characters" in result.stderr
    assert "planwire keys new acme" in result.stderr and short not in result.stderr
