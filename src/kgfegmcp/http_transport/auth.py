"""Who may call the hosted server: static bearer tokens kept as SHA-256 digests, or JWTs from an identity
provider, through FastMCP's token verifiers.

A token is never stored, logged or compared in the clear: the server keeps the digests an operator
configured and compares the digest of what a request presents, in constant time. Without a valid
token the MCP endpoint answers 401 (FastMCP's ``RequireAuthMiddleware``), which :class:`BearerChallenge`
makes say what to do, to a person and to an MCP client.

A JWT is read by whoever sends it, before its signature says anything: FastMCP decodes its header with a
plain ``json.loads`` (a deeply nested one raised ``RecursionError``, a 500 with a traceback) and may fetch
keys for the ``kid`` it names. So :class:`BoundedJWTVerifier` first bounds the token's length, its shape
and its header's size and depth, refuses a header whose members have the wrong type or name another
algorithm, and only then lets FastMCP verify it; it also refuses a token without an expiry unless the
operator allows them. Any refusal is a 401 and at most one short log line that never repeats the token.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import logging
import re
from pathlib import Path
from typing import Any

from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.auth.providers.jwt import JWTVerifier
from mcp_types import INVALID_REQUEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kgfegmcp.core.bounded_json import ClientJsonError, bounded_json_loads
from kgfegmcp.core.config import BackendSettings
from kgfegmcp.core.errors import ConfigurationError

log = logging.getLogger("kgfegmcp.http")

_DIGEST = re.compile(r"[0-9a-f]{64}")
#: The longest JWT read. Identity providers' tokens are a few KiB; 8 KiB is also nginx's default limit for
#: one header line, so a longer token would not pass the usual proxy anyway.
MAX_JWT_CHARS = 8192
#: A JOSE header is one object whose members are strings, except ``crit`` (a list) and ``jwk`` (an object).
MAX_JWT_HEADER_DEPTH = 3
#: A key ID is a short label (a date, a thumbprint, a UUID); FastMCP repeats it in its debug lines.
MAX_KID_CHARS = 256
_COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_STRING_MEMBERS = ("alg", "kid", "typ", "cty", "jku", "x5u", "x5t", "x5t#S256")


class HashedTokenVerifier(TokenVerifier):
    """Accepts a bearer token whose SHA-256 is one of the configured digests."""

    def __init__(self, digests: frozenset[str]) -> None:
        super().__init__()
        self._digests = tuple(sorted(digests))

    async def verify_token(self, token: str) -> AccessToken | None:
        presented = hashlib.sha256(token.encode("utf-8")).hexdigest()
        # Compare against every digest (no early exit), so timing says nothing about which one is near.
        matched = [digest for digest in self._digests if hmac.compare_digest(digest, presented)]
        if not matched:
            return None
        return AccessToken(token=token, client_id=f"token-{matched[0][:12]}", scopes=[])


def token_digests(settings: BackendSettings) -> frozenset[str]:
    """The configured token digests, from the setting and the file; ``configuration_error`` on a bad one."""
    lines = list(settings.auth_token_sha256 or [])
    if settings.auth_token_sha256_file is not None:
        try:
            text = settings.auth_token_sha256_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigurationError(
                f"KGFEGMCP_AUTH_TOKEN_SHA256_FILE cannot be read ({type(exc).__name__}).",
                hint="Point it at a readable file of SHA-256 hex digests, one per line.",
            ) from None
        lines += [line.split("#", 1)[0].strip() for line in text.splitlines()]
    digests = [line.strip().lower() for line in lines if line.strip()]
    bad = sum(1 for digest in digests if _DIGEST.fullmatch(digest) is None)
    if bad:
        raise ConfigurationError(
            f"{bad} configured token digest(s) are not 64 hexadecimal characters.",
            hint="Store sha256(token) in hex (e.g. `printf %s TOKEN | sha256sum`), never the token itself.",
        )
    return frozenset(digests)


class MalformedTokenError(ValueError):
    """A bearer token refused before any verification: the reason names a bound, never the token's text."""


def jwt_header(token: str) -> dict[str, Any]:
    """The JOSE header of a compact JWS, decoded within bounds; :class:`MalformedTokenError` when it is not one.

    Cheap whatever arrives: the length is compared first, then the shape (three base64url segments, which
    also refuses anything that is not ASCII), and only the header segment is decoded, within a depth bound.
    """
    if len(token) > MAX_JWT_CHARS:
        raise MalformedTokenError(f"it is longer than {MAX_JWT_CHARS} characters")
    if _COMPACT_JWS.fullmatch(token) is None:
        raise MalformedTokenError("it is not three base64url segments")
    segment = token.split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError):
        raise MalformedTokenError("its header is not base64url") from None
    try:
        header = bounded_json_loads(raw, max_bytes=MAX_JWT_CHARS, max_depth=MAX_JWT_HEADER_DEPTH)
    except ClientJsonError as exc:
        raise MalformedTokenError(f"its header {exc}") from None
    if not isinstance(header, dict):
        raise MalformedTokenError("its header is not a JSON object")
    wrong = [name for name in _STRING_MEMBERS if name in header and not isinstance(header[name], str)]
    if wrong:
        raise MalformedTokenError(f"its header's {wrong[0]} is not a string")
    if "crit" in header and not (
        isinstance(header["crit"], list) and all(isinstance(name, str) for name in header["crit"])
    ):
        raise MalformedTokenError("its header's crit is not a list of names")
    if len(header.get("kid", "")) > MAX_KID_CHARS:
        raise MalformedTokenError(f"its header's kid is longer than {MAX_KID_CHARS} characters")
    return header


class BoundedJWTVerifier(JWTVerifier):
    """FastMCP's JWT verification, reached only by a token within bounds, and failing closed.

    The screen runs before FastMCP or joserfc decode anything, so a hostile token costs one bounded scan.
    Whatever FastMCP still raises on a well-formed token (``exp: Infinity`` in a signed one raises
    ``OverflowError``) is a refusal too, never a 500.
    """

    def __init__(self, *, allow_no_expiry: bool = False, **verification: Any) -> None:
        super().__init__(**verification)
        self._allow_no_expiry = allow_no_expiry

    async def load_access_token(self, token: str) -> AccessToken | None:
        try:
            header = jwt_header(token)
            if header.get("alg") != self.algorithm:
                raise MalformedTokenError(f"its header's alg is not {self.algorithm}")
        except MalformedTokenError as exc:
            log.debug("bearer token refused: %s", exc)
            return None
        try:
            access = await super().load_access_token(token)
        except Exception as exc:  # fail closed: a verifier's surprise is a refusal, not a 500
            log.info("bearer token refused: its verification raised %s", type(exc).__name__)
            return None
        if access is not None and access.expires_at is None and not self._allow_no_expiry:
            log.info("bearer token refused: it has no expiry (exp); KGFEGMCP_AUTH_JWT_ALLOW_NO_EXPIRY would accept it")
            return None
        return access


class JwksFileVerifier(BoundedJWTVerifier):
    """JWT verification against a JWKS document kept in a file (an identity provider the servers cannot reach,
    or keys an operator distributes as a mounted secret).

    FastMCP re-reads a JWKS when a token names a key it has not cached; here that re-reads the file, so
    rotating keys means replacing the file, not restarting the replicas.
    """

    def __init__(self, jwks_file: Path, **verification: Any) -> None:
        self._jwks_file = jwks_file
        # Re-reading a local file is cheap, so a rotated key is honoured within a second, not FastMCP's 30 s.
        super().__init__(jwks_uri=jwks_file.as_uri(), jwks_refresh_interval=1.0, **verification)
        usable = [key for key in read_jwks(jwks_file).get("keys", []) if isinstance(key, dict)]
        if not usable:
            raise ConfigurationError(
                "KGFEGMCP_AUTH_JWT_JWKS_FILE holds no keys.",
                hint='Point it at a JWKS document: {"keys": [{"kty": "RSA", "kid": …, "n": …, "e": …}]}.',
            )

    async def _fetch_jwks(self) -> dict[str, Any]:
        return read_jwks(self._jwks_file)


def read_jwks(path: Path) -> dict[str, Any]:
    """The JWKS document in ``path``; ``configuration_error`` (naming the setting, not the path) if unusable."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(
            f"KGFEGMCP_AUTH_JWT_JWKS_FILE cannot be read as JSON ({type(exc).__name__}).",
            hint="Point it at a readable JWKS document (the identity provider's jwks.json).",
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ConfigurationError('KGFEGMCP_AUTH_JWT_JWKS_FILE is not a JWKS document (an object with a "keys" list).')
    return document


def _read_public_key(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"KGFEGMCP_AUTH_JWT_PUBLIC_KEY_FILE cannot be read ({type(exc).__name__}).") from None


def jwt_verifier(settings: BackendSettings) -> BoundedJWTVerifier | None:
    """The JWT verifier for the one key source configured (JWKS URL, JWKS file or PEM key), or ``None``."""
    sources = {
        "KGFEGMCP_AUTH_JWT_JWKS_URI": settings.auth_jwt_jwks_uri,
        "KGFEGMCP_AUTH_JWT_JWKS_FILE": settings.auth_jwt_jwks_file,
        "KGFEGMCP_AUTH_JWT_PUBLIC_KEY_FILE": settings.auth_jwt_public_key_file,
    }
    named = [name for name, value in sources.items() if value is not None]
    if not named:
        return None
    if len(named) > 1:
        raise ConfigurationError(
            f"{' and '.join(named)} are set together: a JWT verifier takes its keys from one source.",
            hint="Keep exactly one of them.",
        )
    verification: dict[str, Any] = {
        "issuer": settings.auth_jwt_issuer,
        "audience": settings.auth_jwt_audience,
        "algorithm": settings.auth_jwt_algorithm,
        "required_scopes": settings.auth_jwt_required_scopes,
        "allow_no_expiry": settings.auth_jwt_allow_no_expiry,
    }
    if settings.auth_jwt_jwks_file is not None:
        return JwksFileVerifier(settings.auth_jwt_jwks_file, **verification)
    if settings.auth_jwt_public_key_file is not None:
        return BoundedJWTVerifier(public_key=_read_public_key(settings.auth_jwt_public_key_file), **verification)
    return BoundedJWTVerifier(jwks_uri=settings.auth_jwt_jwks_uri, **verification)


def auth_provider(settings: BackendSettings) -> TokenVerifier | None:
    """The verifier the settings ask for, or ``None`` (no authentication)."""
    digests = token_digests(settings)
    jwt = jwt_verifier(settings)
    if digests and jwt is not None:
        raise ConfigurationError(
            "Both static tokens and JWT verification are configured.",
            hint="Choose one: KGFEGMCP_AUTH_TOKEN_SHA256(_FILE) or KGFEGMCP_AUTH_JWT_*.",
        )
    return HashedTokenVerifier(digests) if digests else jwt


#: The protection space a 401 names (RFC 7235 ``realm``).
REALM = "kgfegmcp"
#: The code that begins every message of a refused bearer token.
UNAUTHORIZED = "unauthorized"
_SEND_A_TOKEN = (
    "Send the token the server's operator gave you in the header Authorization: Bearer <token> "
    "(fastmcp: --auth <token>)."
)
#: The description of a 401 without a token, and of one whose token was refused (RFC 6750 ``error_description``:
#: printable ASCII without quotes or backslashes, so it fits the challenge too).
TOKEN_REQUIRED = "This server requires a bearer token."
TOKEN_REFUSED = (
    "The bearer token was not accepted: it is unknown to this server, expired, or meant for another service."
)
OAUTH_REGISTRATION = "This server registers no OAuth clients: it takes a bearer token."
_SCOPE = re.compile(rb'(?:^|[ ,])scope="([^"]*)"')


def unauthorized_message(description: str) -> str:
    """``unauthorized: <description> Next action: <how to send a token>``."""
    return f"{UNAUTHORIZED}: {description} Next action: {_SEND_A_TOKEN}"


def _is_bearer(value: bytes) -> bool:
    return value[:7].lower() == b"bearer "


class BearerChallenge:
    """ASGI middleware: a 401 says what to do, to a person and to an MCP client.

    FastMCP answers a request without a token with an empty body and a bare ``WWW-Authenticate: Bearer``, and
    a wrong token with a description that tells an OAuth client to re-register, which this server does not
    do. Here the challenge follows RFC 6750: ``realm``, and ``error="invalid_token"`` with a description only
    when a token was sent (§3.1: a request without one gets no error code). The body is a JSON-RPC error, as
    MCP lets an HTTP error carry and as clients show it, whose message says how to send the token; its
    ``data`` holds the RFC 6750 members.

    An OAuth client (fastmcp's command line is one, by default) meeting the 401 looks for an authorization
    server and finally posts to ``/register``; that answers 404 with the same advice, which it prints.
    """

    def __init__(self, app: ASGIApp, mcp_path: str) -> None:
        self.app = app
        self.mcp_path = mcp_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/register" and self.mcp_path != "/register":
            await _send(
                send,
                404,
                [(b"content-type", b"text/plain; charset=utf-8")],
                unauthorized_message(OAUTH_REGISTRATION).encode(),
            )
            return
        token_sent = any(name == b"authorization" and _is_bearer(value) for name, value in scope["headers"])
        replaced = False

        async def answer(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 401:
                replaced = True
                challenge = next((v for k, v in message.get("headers", []) if k.lower() == b"www-authenticate"), b"")
                await _send_unauthorized(send, token_sent, _SCOPE.search(challenge))
                return
            if not replaced:  # the rest of a replaced 401 (its body) is dropped
                await send(message)

        await self.app(scope, receive, answer)


async def _send_unauthorized(send: Send, token_sent: bool, scope: re.Match[bytes] | None) -> None:
    description = TOKEN_REFUSED if token_sent else TOKEN_REQUIRED
    challenge = f'Bearer realm="{REALM}"'
    data: dict[str, str] = {"errorCode": UNAUTHORIZED}
    if token_sent:
        challenge += f', error="invalid_token", error_description="{description}"'
        data["error"] = "invalid_token"
    data["error_description"] = description
    if scope is not None:
        challenge += f', scope="{scope.group(1).decode("latin-1")}"'
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": INVALID_REQUEST, "message": unauthorized_message(description), "data": data},
    }
    headers = [(b"content-type", b"application/json"), (b"www-authenticate", challenge.encode("latin-1"))]
    await _send(send, 401, headers, json.dumps(body).encode())


async def _send(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    length = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + length})
    await send({"type": "http.response.body", "body": body})


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def require_auth_for_public_bind(settings: BackendSettings, auth: TokenVerifier | None) -> bool:
    """``configuration_error`` for a non-loopback bind without authentication, unless the operator opted out.

    Returns whether the opt-out is in effect (the caller logs it as a warning).
    """
    if auth is not None or is_loopback(settings.http_host):
        return False
    if settings.allow_unauthenticated_public_bind:
        return True
    raise ConfigurationError(
        f"Refusing to serve HTTP on {settings.http_host} without authentication: anyone who can reach it could "
        "read every package.",
        hint="Configure KGFEGMCP_AUTH_TOKEN_SHA256(_FILE) or KGFEGMCP_AUTH_JWT_*, bind 127.0.0.1 behind a proxy, "
        "or set KGFEGMCP_ALLOW_UNAUTHENTICATED_PUBLIC_BIND=true to accept the risk.",
    )
