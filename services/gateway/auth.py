"""Who is calling: API keys (hashed, compared in constant time) and signed browser tokens.

Pure rules, no I/O. A caller proves its tenant one of two ways:

- `Authorization: Bearer <key>`: the key is hashed (SHA-256) and compared with every
  configured hash using `hmac.compare_digest`, so neither a dict lookup nor an early exit
  leaks how close a guess was. Configured keys may be given already hashed as
  `sha256:<hex>`; plain keys are hashed at load and the plain text is not kept.
- the `planwire_auth` cookie, set by `POST /auth/login`: `<payload>.<signature>` where the
  payload names the tenant and an expiry and the signature is HMAC-SHA256 with the server
  secret. Browsers' `EventSource` sends cookies but no headers, so this is how a page
  authenticates the event stream without ever putting the key in a URL.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import re
import secrets
import time

COOKIE_NAME = "planwire_auth"
ANONYMOUS_TENANT = "public"
HASH_PREFIX = "sha256:"
# A plain key must be able to hold 32 random bytes: 43 characters of URL-safe base64 (what
# `new_key` prints). A hashed key's length cannot be checked: `planwire keys new` makes both.
KEY_BYTES = 32
MIN_KEY_CHARS = 43
STORED_HASH = re.compile(r"[0-9a-fA-F]{64}")


class Unauthorized(Exception):
    """The request names no valid credential; the message says which part failed."""


def key_hash(key: str) -> bytes:
    """The SHA-256 digest a key is stored and compared as."""
    return hashlib.sha256(key.encode()).digest()


class KeyRing:
    """Configured keys as hashes, each mapped to its tenant."""

    def __init__(self, keys: dict[str, str]) -> None:
        self._entries = [(_stored_hash(key), tenant) for key, tenant in keys.items()]

    def __bool__(self) -> bool:
        return bool(self._entries)

    def tenant_for(self, key: str) -> str | None:
        """The key's tenant, or None; looks at every entry whatever matches."""
        presented, found = key_hash(key), None
        for stored, tenant in self._entries:
            if hmac.compare_digest(presented, stored):
                found = tenant
        return found


def new_key() -> str:
    """A new API key: `KEY_BYTES` random bytes, URL-safe (43 characters)."""
    return secrets.token_urlsafe(KEY_BYTES)


def stored_form(key: str) -> str:
    """The key as it can be configured without its plain text: `sha256:<hex>`."""
    return HASH_PREFIX + key_hash(key).hex()


def key_refusal(keys: dict[str, str]) -> str | None:
    """Why a configured key may not be used (too short to be random enough, or a malformed
    hash), or None. Names the tenant, never the key."""
    for key, tenant in keys.items():
        if key.startswith(HASH_PREFIX):
            if not STORED_HASH.fullmatch(key.removeprefix(HASH_PREFIX)):
                return (
                    f"PLANWIRE_API_KEYS: the hashed key of tenant {tenant!r} is not "
                    f"'{HASH_PREFIX}' and 64 hex digits; `planwire keys new {tenant}` prints one"
                )
        elif len(key) < MIN_KEY_CHARS:
            return (
                f"PLANWIRE_API_KEYS: the key of tenant {tenant!r} is {len(key)} characters; "
                f"a key must hold at least {KEY_BYTES} random bytes ({MIN_KEY_CHARS} characters "
                f"or more): `planwire keys new {tenant}` makes one"
            )
    return None


def _stored_hash(configured: str) -> bytes:
    if configured.startswith(HASH_PREFIX):
        return bytes.fromhex(configured.removeprefix(HASH_PREFIX))
    return key_hash(configured)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign_token(secret: bytes, tenant: str, ttl_s: int, now: float | None = None) -> str:
    """A token naming `tenant`, valid for `ttl_s` seconds."""
    expires = int((time.time() if now is None else now) + ttl_s)
    payload = _b64(json.dumps({"t": tenant, "exp": expires}, separators=(",", ":")).encode())
    signature = hmac.new(secret, payload.encode(), hashlib.sha256).digest()
    return f"{payload}.{_b64(signature)}"


def verify_token(secret: bytes, token: str, now: float | None = None) -> str:
    """The tenant a token names; Unauthorized when it is forged, malformed or expired."""
    payload, _, signature = token.partition(".")
    expected = hmac.new(secret, payload.encode(), hashlib.sha256).digest()
    try:
        valid = hmac.compare_digest(_unb64(signature), expected)
        claims = json.loads(_unb64(payload)) if valid else None
    except (ValueError, UnicodeError):
        valid = False
    if not valid or not isinstance(claims, dict):
        raise Unauthorized("the auth cookie is not valid")
    tenant, expires = claims.get("t"), claims.get("exp")
    if not isinstance(tenant, str) or not isinstance(expires, int):
        raise Unauthorized("the auth cookie is not valid")
    if expires <= (time.time() if now is None else now):
        raise Unauthorized("the auth cookie has expired; log in again")
    return tenant


def bearer_key(authorization: str) -> str:
    """The key in an `Authorization: Bearer <key>` header; Unauthorized for any other scheme."""
    scheme, _, key = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise Unauthorized("the Authorization header must be 'Bearer <key>'")
    return key.strip()


class Authenticator:
    """The one place a request's tenant is decided (see `tenant`)."""

    def __init__(self, keys: KeyRing, secret: bytes, token_ttl_s: int) -> None:
        self.keys, self.secret, self.token_ttl_s = keys, secret, token_ttl_s

    @property
    def anonymous(self) -> bool:
        """No keys configured: every caller is the one anonymous tenant."""
        return not self.keys

    def tenant(self, authorization: str | None, cookie: str | None) -> str:
        """A bearer header wins over the cookie; with neither, only anonymous mode admits."""
        if self.anonymous:
            return ANONYMOUS_TENANT
        if authorization is not None:
            found = self.keys.tenant_for(bearer_key(authorization))
            if found is None:
                raise Unauthorized("unknown API key")
            return found
        if cookie:
            return verify_token(self.secret, cookie)
        raise Unauthorized("missing credentials: send 'Authorization: Bearer <key>' or log in")

    def login_token(self, tenant: str) -> str:
        """The cookie value for a tenant that just proved its key."""
        return sign_token(self.secret, tenant, self.token_ttl_s)


def secret_bytes(configured: str) -> bytes:
    """The signing secret; random for this process when none is configured."""
    return configured.encode() if configured else secrets.token_bytes(32)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`; a wildcard or a name is not loopback."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def startup_refusal(host: str, keys: dict[str, str], allow_anonymous: bool) -> str | None:
    """Why the gateway must not start with these settings, or None when it may."""
    if keys:
        return key_refusal(keys)
    if allow_anonymous or is_loopback(host):
        return None
    return (
        f"refusing to serve {host} without API keys: set PLANWIRE_API_KEYS "
        '(e.g. \'{"<key>": "<tenant>"}\'), or PLANWIRE_ALLOW_ANONYMOUS=1 to accept '
        "every caller as one tenant"
    )
