"""The sign-in cookie: names its tenant until it expires; a forged or altered one names none."""

from __future__ import annotations

from services.gateway import browser_auth

SECRET = b"s" * 32


def test_a_signed_cookie_names_its_tenant_until_it_expires():
    token = browser_auth.sign("acme", 1000.0, SECRET, ttl_s=60)
    assert browser_auth.verify(token, 1030.0, SECRET) == "acme"
    assert browser_auth.verify(token, 1061.0, SECRET) is None


def test_an_altered_or_foreign_cookie_names_no_tenant():
    token = browser_auth.sign("acme", 1000.0, SECRET, ttl_s=60)
    body, expiry, mac = token.split(".")
    other = browser_auth.sign("globex", 1000.0, SECRET, ttl_s=60).split(".")[0]
    assert browser_auth.verify(f"{other}.{expiry}.{mac}", 1000.0, SECRET) is None
    assert browser_auth.verify(f"{body}.{int(expiry) + 999}.{mac}", 1000.0, SECRET) is None
    assert browser_auth.verify(token, 1000.0, b"x" * 32) is None
    for junk in (None, "", "a.b", "a.b.c.d", "!!.12.zz"):
        assert browser_auth.verify(junk, 1000.0, SECRET) is None


def test_bearer_keys_map_to_tenants():
    keys = {"key-a": "acme", "key-b": "globex"}
    assert browser_auth.bearer_tenant(keys, "Bearer key-b") == "globex"
    assert browser_auth.bearer_tenant(keys, "Bearer key-c") is None
    assert browser_auth.bearer_tenant(keys, None) is None
