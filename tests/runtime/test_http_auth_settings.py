"""Hosted-mode authentication settings: digests only, one verifier kind, loopback detection."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from kgfegmcp.config import load_settings
from kgfegmcp.errors import ConfigurationError
from kgfegmcp.http_auth import (
    HashedTokenVerifier,
    JwksFileVerifier,
    auth_provider,
    is_loopback,
    require_auth_for_public_bind,
)


def test_a_token_is_accepted_by_its_digest_only() -> None:
    verifier = HashedTokenVerifier(frozenset({hashlib.sha256(b"right").hexdigest()}))
    accepted = asyncio.run(verifier.verify_token("right"))
    assert accepted is not None and accepted.client_id.startswith("token-")
    assert asyncio.run(verifier.verify_token("wrong")) is None
    assert asyncio.run(verifier.verify_token(hashlib.sha256(b"right").hexdigest())) is None  # not the digest itself


def test_a_digest_that_is_not_hex_is_refused_without_echoing_it(tmp_path: Path) -> None:
    file = tmp_path / "tokens"
    file.write_text("plain-text-token-by-mistake\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as caught:
        auth_provider(load_settings({"auth_token_sha256_file": file}))
    assert "not 64 hexadecimal characters" in caught.value.public_message
    assert "plain-text-token-by-mistake" not in caught.value.public_message


def test_static_tokens_and_jwt_are_not_configured_together(tmp_path: Path) -> None:
    settings = load_settings(
        {"auth_token_sha256": ["0" * 64], "auth_jwt_jwks_uri": "https://idp.example/.well-known/jwks.json"}
    )
    with pytest.raises(ConfigurationError, match="Both static tokens and JWT"):
        auth_provider(settings)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False), ("10.1.2.3", False)],
)
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_public_bind_needs_auth_or_an_explicit_opt_out() -> None:
    with pytest.raises(ConfigurationError, match=r"Refusing to serve HTTP on 0\.0\.0\.0"):
        require_auth_for_public_bind(load_settings({"http_host": "0.0.0.0"}), None)
    opted = load_settings({"http_host": "0.0.0.0", "allow_unauthenticated_public_bind": True})
    assert require_auth_for_public_bind(opted, None) is True
    assert require_auth_for_public_bind(load_settings({"http_host": "127.0.0.1"}), None) is False


def test_a_jwt_verifier_takes_its_keys_from_exactly_one_source(tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text('{"keys": [{"kty": "RSA", "kid": "k", "n": "AQAB", "e": "AQAB"}]}', encoding="utf-8")
    settings = load_settings({"auth_jwt_jwks_file": jwks, "auth_jwt_jwks_uri": "https://idp.example/jwks.json"})
    with pytest.raises(ConfigurationError, match="KGFEGMCP_AUTH_JWT_JWKS_URI and KGFEGMCP_AUTH_JWT_JWKS_FILE"):
        auth_provider(settings)
    assert isinstance(auth_provider(load_settings({"auth_jwt_jwks_file": jwks})), JwksFileVerifier)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "cannot be read as JSON"),
        ('["a", "list"]', "is not a JWKS document"),
        ('{"keys": []}', "holds no keys"),
    ],
)
def test_an_unusable_jwks_file_stops_start_up_without_naming_its_path(
    tmp_path: Path, content: str, message: str
) -> None:
    jwks = tmp_path / "secret-location-jwks.json"
    jwks.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=message) as caught:
        auth_provider(load_settings({"auth_jwt_jwks_file": jwks}))
    assert "secret-location" not in caught.value.public_message
    with pytest.raises(ConfigurationError, match="cannot be read"):
        auth_provider(load_settings({"auth_jwt_jwks_file": tmp_path / "missing.json"}))


def test_only_asymmetric_jwt_algorithms_are_accepted() -> None:
    with pytest.raises(ConfigurationError):
        load_settings({"auth_jwt_algorithm": "HS256"})
    assert load_settings({"auth_jwt_algorithm": "ES256"}).auth_jwt_algorithm == "ES256"
