"""Hosted-mode authentication settings: digests only, one verifier kind, loopback detection, JWTs screened
before they are decoded, expiry required, and host and origin patterns that match whole DNS labels."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from pathlib import Path

import pytest
from fastmcp.server.auth.providers.jwt import RSAKeyPair
from joserfc import jwt
from joserfc.jwk import RSAKey

from kgfegmcp.core.config import load_settings
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.core.host_patterns import is_host_header
from kgfegmcp.http_transport.auth import (
    MAX_JWT_CHARS,
    BoundedJWTVerifier,
    HashedTokenVerifier,
    JwksFileVerifier,
    MalformedTokenError,
    auth_provider,
    is_loopback,
    jwt_header,
    jwt_verifier,
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


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _verifiers(tmp_path: Path, keys: RSAKeyPair, **settings: object) -> list[BoundedJWTVerifier]:
    """The verifier each key source builds from the settings: a PEM key and a JWKS file."""
    pem, jwks = tmp_path / "idp.pem", tmp_path / "jwks.json"
    pem.write_text(keys.public_key, encoding="utf-8")
    jwk = {**RSAKey.import_key(keys.public_key).as_dict(private=False), "kid": "k1", "alg": "RS256"}
    jwks.write_text(json.dumps({"keys": [jwk]}), encoding="utf-8")
    built = [
        jwt_verifier(load_settings({"auth_jwt_public_key_file": pem, **settings})),
        jwt_verifier(load_settings({"auth_jwt_jwks_file": jwks, **settings})),
    ]
    return [verifier for verifier in built if verifier is not None]


@pytest.mark.parametrize(
    "header",
    [b'{"a":' * 1500, b"[" * 6000, b"[" * 40_000, b'{"alg": "RS256", "jwk": {"x": {"y": {"z": 1}}}}'],
    ids=["nested-objects", "nested-lists", "nested-and-long", "four-levels"],
)
def test_a_nested_jwt_header_is_refused_before_it_is_decoded(tmp_path: Path, header: bytes) -> None:
    keys = RSAKeyPair.generate()
    token = f"{_b64url(header)}.{_b64url(b'{}')}.{_b64url(b'sig')}"
    for verifier in _verifiers(tmp_path, keys):
        assert asyncio.run(verifier.verify_token(token)) is None
    with pytest.raises(MalformedTokenError, match=r"nested deeper than 3|longer than 8192"):
        jwt_header(token)


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("a" * (MAX_JWT_CHARS + 1), "longer than 8192 characters"),
        ("only.two", "not three base64url segments"),
        ("a.b.c.d", "not three base64url segments"),
        ("é.e30.c2ln", "not three base64url segments"),
        ("e30xx.e30.c2ln", "not base64url"),
        (f"{_b64url(b'{nope')}.e30.c2ln", "not valid JSON"),
        (f"{_b64url(bytes([0xFF]))}.e30.c2ln", "not UTF-8"),
        (f"{_b64url(b'[1]')}.e30.c2ln", "not a JSON object"),
        (f"{_b64url(json.dumps({'alg': 'RS256', 'kid': ['k1']}).encode())}.e30.c2ln", "kid is not a string"),
        (f"{_b64url(json.dumps({'alg': {'n': 'RS256'}}).encode())}.e30.c2ln", "alg is not a string"),
        (f"{_b64url(json.dumps({'alg': 'RS256', 'crit': 'exp'}).encode())}.e30.c2ln", "crit is not a list"),
        (f"{_b64url(json.dumps({'alg': 'RS256', 'kid': 'k' * 300}).encode())}.e30.c2ln", "kid is longer than 256"),
    ],
)
def test_a_malformed_jwt_is_refused_with_a_reason_that_echoes_nothing(tmp_path: Path, token: str, reason: str) -> None:
    with pytest.raises(MalformedTokenError, match=reason) as caught:
        jwt_header(token)
    assert token[:12] not in str(caught.value)
    for verifier in _verifiers(tmp_path, RSAKeyPair.generate()):
        assert asyncio.run(verifier.verify_token(token)) is None


def test_a_signed_jwt_with_an_unusable_expiry_is_refused_not_raised(tmp_path: Path) -> None:
    keys = RSAKeyPair.generate()
    private = RSAKey.import_key(keys.private_key.get_secret_value())
    infinite = jwt.encode({"alg": "RS256", "kid": "k1"}, {"sub": "x", "exp": float("inf")}, private)
    for verifier in _verifiers(tmp_path, keys):
        assert asyncio.run(verifier.verify_token(infinite)) is None


def test_a_jwt_without_an_expiry_needs_the_setting(tmp_path: Path) -> None:
    keys = RSAKeyPair.generate()
    private = RSAKey.import_key(keys.private_key.get_secret_value())
    forever = jwt.encode({"alg": "RS256", "kid": "k1"}, {"sub": "service"}, private)
    expiring = keys.create_token(kid="k1")
    assert load_settings().auth_jwt_allow_no_expiry is False
    for verifier in _verifiers(tmp_path, keys):
        assert asyncio.run(verifier.verify_token(forever)) is None
        assert asyncio.run(verifier.verify_token(expiring)) is not None
    for verifier in _verifiers(tmp_path, keys, auth_jwt_allow_no_expiry=True):
        accepted = asyncio.run(verifier.verify_token(forever))
        assert accepted is not None and accepted.expires_at is None


@pytest.mark.parametrize(
    "pattern",
    ["*", "mcp.example.org", "MCP.Example.org", "*.example.org", "kgfegmcp", "kg_server", "10.0.0.5", "[::1]", "::1"],
)
def test_host_patterns_that_match_whole_labels_are_accepted(pattern: str) -> None:
    assert load_settings({"http_allowed_hosts": [pattern]}).http_allowed_hosts == [pattern]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("*example.org", "is not an exact host name"),  # would accept evilexample.org
        ("api.*", "is not an exact host name"),  # would accept api.attacker.net
        ("kgfegmcp.*.svc", "is not an exact host name"),
        ("mcp?.example.org", "is not an exact host name"),
        ("[a-z]cp.example.org", "is not an exact host name"),
        ("*.*.example.org", "is not an exact host name"),
        ("*.", "is not an exact host name"),
        ("", "is not an exact host name"),
        ("mcp..example.org", "is not an exact host name"),
        ("10.0.0.300", "is not an exact host name"),
        ("\u212aey.example.org", "is not an exact host name"),  # the Kelvin sign case-folds to k
        ("mcp.example.org:443", "names a port, which is not compared"),
        ("[::1]:8765", "names a port, which is not compared"),
    ],
)
def test_other_host_patterns_stop_start_up_naming_the_setting(pattern: str, reason: str) -> None:
    with pytest.raises(ConfigurationError, match=r"Invalid settings: KGFEGMCP_HTTP_ALLOWED_HOSTS: ") as caught:
        load_settings({"http_allowed_hosts": ["mcp.example.org", pattern]})
    assert reason in caught.value.public_message


@pytest.mark.parametrize(
    ("pattern", "accepted"),
    [
        ("*", True),
        ("https://mcp.example.org", True),
        ("https://*.example.org", True),
        ("http://localhost:3000", True),
        ("http://[::1]:3000", True),
        ("vscode-file://vscode-app", True),
        ("https://*example.org", False),
        ("https://mcp.*", False),
        ("https://*", False),
        ("*://mcp.example.org", False),
        ("https://mcp.example.org:*", False),
        ("https://mcp.example.org/", False),
        ("mcp.example.org", False),
        ("https://mcp.example.org:70000", False),
    ],
)
def test_origin_patterns_follow_the_same_grammar(pattern: str, accepted: bool) -> None:
    if accepted:
        assert load_settings({"http_allowed_origins": [pattern]}).http_allowed_origins == [pattern]
    else:
        with pytest.raises(ConfigurationError, match=r"KGFEGMCP_HTTP_ALLOWED_ORIGINS: .* is not `\*` or scheme://"):
            load_settings({"http_allowed_origins": [pattern]})


@pytest.mark.parametrize(
    ("host", "well_formed"),
    [
        ("mcp.example.org", True),
        ("a.b.example.org:8443", True),
        ("127.0.0.1:8765", True),
        ("[::1]:8765", True),
        (".example.org", False),  # fnmatch's `*` in `*.example.org` matches the empty prefix
        ("a b.example.org", False),
        ("evil.net/.example.org", False),
        ("::1", False),
        ("[::1]x", False),
        ("\u017f.example.org", False),  # the long s case-folds to s
        ("mcp.example.org:", False),
        ("mcp.example.org:0", False),
        ("", False),
    ],
)
def test_a_host_header_is_a_name_and_an_optional_port(host: str, well_formed: bool) -> None:
    assert is_host_header(host) is well_formed
