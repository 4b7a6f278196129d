"""Gateway authentication rules: hashed keys, signed cookies, closed by default."""

from __future__ import annotations

import hashlib

import pytest

from services.gateway import auth

SECRET = b"s" * 32


def authenticator(keys: dict[str, str] | None = None) -> auth.Authenticator:
    return auth.Authenticator(auth.KeyRing(keys or {}), SECRET, token_ttl_s=60)


def test_a_key_maps_to_its_tenant_and_a_wrong_key_to_none():
    ring = auth.KeyRing({"k-alpha": "alpha", "k-beta": "beta"})
    assert ring.tenant_for("k-alpha") == "alpha"
    assert ring.tenant_for("k-beta") == "beta"
    assert ring.tenant_for("k-alph") is None
    assert ring.tenant_for("") is None


def test_keys_can_be_configured_already_hashed():
    digest = hashlib.sha256(b"k-alpha").hexdigest()
    ring = auth.KeyRing({f"sha256:{digest}": "alpha"})
    assert ring.tenant_for("k-alpha") == "alpha"
    assert ring.tenant_for(f"sha256:{digest}") is None  # the hash is not itself a key


def test_the_ring_keeps_no_plain_key():
    ring = auth.KeyRing({"k-alpha": "alpha"})
    assert "k-alpha" not in repr(vars(ring))


def test_bearer_header_cookie_and_nothing():
    gate = authenticator({"k-alpha": "alpha"})
    assert gate.tenant("Bearer k-alpha", None) == "alpha"
    assert gate.tenant("bearer  k-alpha ", None) == "alpha"
    assert gate.tenant(None, gate.login_token("alpha")) == "alpha"
    for header in ("Bearer wrong", "Basic k-alpha", "k-alpha", "Bearer "):
        with pytest.raises(auth.Unauthorized):
            gate.tenant(header, None)
    with pytest.raises(auth.Unauthorized, match="missing credentials"):
        gate.tenant(None, None)


def test_a_wrong_bearer_key_is_refused_even_beside_a_valid_cookie():
    gate = authenticator({"k-alpha": "alpha"})
    with pytest.raises(auth.Unauthorized):
        gate.tenant("Bearer wrong", gate.login_token("alpha"))


def test_without_keys_every_caller_is_the_anonymous_tenant():
    assert authenticator().tenant(None, None) == auth.ANONYMOUS_TENANT


def test_a_token_expires():
    token = auth.sign_token(SECRET, "alpha", ttl_s=10, now=1000.0)
    assert auth.verify_token(SECRET, token, now=1009.0) == "alpha"
    with pytest.raises(auth.Unauthorized, match="expired"):
        auth.verify_token(SECRET, token, now=1010.0)


def test_a_forged_or_mangled_token_is_refused():
    token = auth.sign_token(SECRET, "alpha", ttl_s=60)
    payload, _, signature = token.partition(".")
    forged_payload = auth.sign_token(SECRET, "beta", ttl_s=60).partition(".")[0]
    for bad in (
        f"{forged_payload}.{signature}",  # another tenant under alpha's signature
        auth.sign_token(b"other secret", "alpha", ttl_s=60),
        payload,
        "",
        "..",
        "%%%.###",
        token + "x",
        "\x00.\u202e",
    ):
        with pytest.raises(auth.Unauthorized):
            auth.verify_token(SECRET, bad)


@pytest.mark.parametrize(
    ("host", "keys", "anonymous", "refused"),
    [
        ("127.0.0.1", False, False, False),
        ("localhost", False, False, False),
        ("::1", False, False, False),
        ("127.0.0.2", False, False, False),
        ("0.0.0.0", False, False, True),
        ("::", False, False, True),
        ("10.1.2.3", False, False, True),
        ("gateway.example", False, False, True),
        ("0.0.0.0", True, False, False),
        ("0.0.0.0", False, True, False),
    ],
)
def test_the_gateway_refuses_an_open_bind_without_keys(host, keys, anonymous, refused):
    reason = auth.startup_refusal(host, {auth.new_key(): "acme"} if keys else {}, anonymous)
    assert (reason is not None) == refused
    if refused:
        assert "PLANWIRE_API_KEYS" in reason and "PLANWIRE_ALLOW_ANONYMOUS" in reason


def test_a_new_key_holds_32_random_bytes_and_its_stored_form_admits_it():
    keys = {auth.new_key() for _ in range(50)}
    assert len(keys) == 50 and all(len(key) >= auth.MIN_KEY_CHARS for key in keys)
    key = keys.pop()
    stored = auth.stored_form(key)
    assert stored.startswith("sha256:") and key not in stored
    assert auth.KeyRing({stored: "acme"}).tenant_for(key) == "acme"
    assert auth.startup_refusal("0.0.0.0", {stored: "acme", key: "acme"}, False) is None


@pytest.mark.parametrize("length", [1, 24, auth.MIN_KEY_CHARS - 1])
def test_a_key_too_short_to_hold_32_random_bytes_refuses_the_start_naming_its_tenant(length):
    short = ("Q7" * 30)[:length]
    reason = auth.startup_refusal("0.0.0.0", {auth.new_key(): "ok", short: "acme"}, False)
    assert reason is not None
    assert "'acme'" in reason and f"{length} characters" in reason
    assert "planwire keys new acme" in reason and short not in reason


@pytest.mark.parametrize("stored", ["sha256:abc", "sha256:" + "g" * 64, "sha256:" + "a" * 65])
def test_a_malformed_hashed_key_refuses_the_start(stored):
    reason = auth.startup_refusal("127.0.0.1", {stored: "acme"}, False)
    assert reason is not None and "hashed key of tenant 'acme'" in reason
