"""Who may call the hosted server: static bearer tokens kept as SHA-256 digests, or JWTs from an identity
provider, through FastMCP's token verifiers.

A token is never stored, logged or compared in the clear: the server keeps the digests an operator
configured and compares the digest of what a request presents, in constant time. Without a valid
token the MCP endpoint answers 401 with ``WWW-Authenticate`` (FastMCP's ``RequireAuthMiddleware``).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re

from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.auth.providers.jwt import JWTVerifier

from kgfegmcp.config import BackendSettings
from kgfegmcp.errors import ConfigurationError

_DIGEST = re.compile(r"[0-9a-f]{64}")


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


def auth_provider(settings: BackendSettings) -> TokenVerifier | None:
    """The verifier the settings ask for, or ``None`` (no authentication)."""
    digests = token_digests(settings)
    jwt = settings.auth_jwt_jwks_uri is not None or settings.auth_jwt_public_key_file is not None
    if digests and jwt:
        raise ConfigurationError(
            "Both static tokens and JWT verification are configured.",
            hint="Choose one: KGFEGMCP_AUTH_TOKEN_SHA256(_FILE) or KGFEGMCP_AUTH_JWT_*.",
        )
    if digests:
        return HashedTokenVerifier(digests)
    if not jwt:
        return None
    public_key = None
    if settings.auth_jwt_public_key_file is not None:
        try:
            public_key = settings.auth_jwt_public_key_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigurationError(
                f"KGFEGMCP_AUTH_JWT_PUBLIC_KEY_FILE cannot be read ({type(exc).__name__})."
            ) from None
    return JWTVerifier(
        public_key=public_key,
        jwks_uri=settings.auth_jwt_jwks_uri if public_key is None else None,
        issuer=settings.auth_jwt_issuer,
        audience=settings.auth_jwt_audience,
        required_scopes=settings.auth_jwt_required_scopes,
    )


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
