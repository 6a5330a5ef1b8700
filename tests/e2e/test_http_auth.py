"""Hosted mode over real HTTP on 127.0.0.1: bearer tokens kept as SHA-256 digests, 401 with an RFC 6750
``WWW-Authenticate``, advice a person and fastmcp's client both show, and no data without one, probes
outside authentication, allowed hosts for a same-host proxy, no unauthenticated server on a public address
unless the operator opts out, and malformed or never-expiring JWTs refused with a quiet 401."""

from __future__ import annotations

import base64
import functools
import hashlib
import http.client
import json
import os
import re
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from e2e_support import (
    BIN,
    KGFEGMCP,
    REPOSITORY_ROOT,
    START_TIMEOUT,
    HttpServer,
    accepting,
    free_port,
    full_env,
    http_server,
    stop,
)
from fastmcp.server.auth.providers.jwt import RSAKeyPair
from joserfc import jwt
from joserfc.jwk import RSAKey

from default_catalog_ids import DEFAULT_PACKAGES

pytestmark = pytest.mark.slow

TOKEN = "kgfegmcp-test-token-7f3a9c2e51d04b8e"
DIGEST = hashlib.sha256(TOKEN.encode()).hexdigest()
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def request(
    url: str, headers: dict[str, str] | None = None, body: object = LIST_TOOLS
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP exchange: status, headers (lower-cased names) and body."""
    data = json.dumps(body).encode() if body is not None else None
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
        **(headers or {}),
    }
    call = urllib.request.Request(url, data=data, headers=sent, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(call, timeout=15) as response:  # loopback only
            return int(response.status), {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return int(error.code), {k.lower(): v for k, v in error.headers.items()}, error.read()


def test_static_tokens_guard_the_mcp_endpoint_and_are_never_logged(default_catalog_root: Path, tmp_path: Path) -> None:
    digests = tmp_path / "tokens.sha256"
    digests.write_text(f"# the on-call team's token\n{DIGEST}\n", encoding="utf-8")
    settings = {"KGFEGMCP_AUTH_TOKEN_SHA256_FILE": str(digests), "KGFEGMCP_LOG_LEVEL": "DEBUG"}
    with http_server(default_catalog_root, settings) as server:
        status, headers, body = request(server.url)
        assert status == 401 and headers["www-authenticate"].startswith("Bearer")
        assert b"tools" not in body and b"EF05MA" not in body  # no data without a token
        assert request(server.url, {"Authorization": "Bearer not-the-token"})[0] == 401
        status, _, body = request(server.url, {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and b"search_standards" in body
        # The probes answer without a token and say nothing but the catalog's identity.
        base = server.url.removesuffix("/mcp")
        assert request(f"{base}/healthz", body=None)[:1] == (200,)
        status, _, ready = request(f"{base}/readyz", body=None)
        document = json.loads(ready)
        assert status == 200 and document["status"] == "ready" and document["packages"] == len(DEFAULT_PACKAGES)
        assert set(document) == {"status", "catalogFingerprint", "packages"}
        log = server.log.read_text(encoding="utf-8")
    assert TOKEN not in log and "not-the-token" not in log


#: RFC 6750 §3: an ``error_description`` is printable ASCII without a double quote or a backslash.
DESCRIPTION_CHARS = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]*")
#: What every refusal of a token tells a person to do.
ADVICE = "Next action: Send the token the server's operator gave you in the header Authorization: Bearer <token>"
CLIENT_TIMEOUT = 120


def readme_outputs() -> list[str]:
    """What the README shows ``fastmcp list`` printing without a token, then with a wrong one."""
    readme = (REPOSITORY_ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^```console\n(\$ \.venv/bin/fastmcp list .*?)^```$", readme, re.MULTILINE | re.DOTALL)
    assert block is not None, "README.md no longer shows what fastmcp prints on a 401"
    return [" ".join(shown.split()) for shown in re.split(r"^\$ .*$", block.group(1), flags=re.MULTILINE)[1:]]


def fastmcp_list(url: str, home: Path, *auth: str) -> tuple[str, str]:
    """``fastmcp list URL [--auth TOKEN]`` as a person runs it: what it printed on stdout and on stderr, words
    joined by single spaces (it wraps at the terminal's width)."""
    run = subprocess.run(
        [str(BIN / "fastmcp"), "list", url, *auth],
        env={**os.environ, "HOME": str(home), "FASTMCP_HOME": str(home / "fastmcp")},  # its OAuth files stay here
        cwd=home,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT,
        check=False,
    )
    assert run.returncode == 1, run
    return " ".join(run.stdout.split()), " ".join(run.stderr.split())


def test_a_401_says_how_to_send_a_token_to_a_person_and_to_a_client(default_catalog_root: Path, tmp_path: Path) -> None:
    with http_server(default_catalog_root, {"KGFEGMCP_AUTH_TOKEN_SHA256": json.dumps([DIGEST])}) as server:
        missing = request(server.url)
        wrong = request(server.url, {"Authorization": "Bearer not-the-token"})
        base = server.url.removesuffix("/mcp")
        registration = request(f"{base}/register", body={"client_name": "an OAuth client"})
        without_token = fastmcp_list(server.url, tmp_path)
        wrong_token = fastmcp_list(server.url, tmp_path, "--auth", "not-the-token")
    # Without a token: the challenge names the realm and no error (RFC 6750 §3.1); the body says what to do.
    status, headers, body = missing
    assert status == 401 and headers["www-authenticate"] == 'Bearer realm="kgfegmcp"'
    assert headers["content-type"] == "application/json"
    error = json.loads(body)["error"]
    assert error["message"].startswith(f"unauthorized: This server requires a bearer token. {ADVICE}")
    assert error["data"] == {"errorCode": "unauthorized", "error_description": "This server requires a bearer token."}
    # A wrong token: error="invalid_token" and its description, in the challenge and in the body.
    status, headers, body = wrong
    challenge = re.fullmatch(
        r'Bearer realm="kgfegmcp", error="invalid_token", error_description="([^"]*)"', headers["www-authenticate"]
    )
    assert status == 401 and challenge is not None, headers
    assert DESCRIPTION_CHARS.fullmatch(challenge.group(1)) and "not accepted" in challenge.group(1)
    error = json.loads(body)["error"]
    assert error["message"] == f"unauthorized: {challenge.group(1)} {ADVICE} (fastmcp: --auth <token>)."
    assert error["data"] == {
        "errorCode": "unauthorized",
        "error": "invalid_token",
        "error_description": challenge.group(1),
    }
    # An OAuth client looks for an authorization server, then registers at /register: that says the same.
    status, _, body = registration
    assert status == 404 and body.decode().startswith("unauthorized: This server registers no OAuth clients")
    assert ADVICE in body.decode()
    # fastmcp's command line prints the advice in both cases; without a token, after its own OAuth attempt (whose
    # traceback it logs on stderr). The README shows what it printed.
    assert "Registration failed: 404 unauthorized: This server registers no OAuth clients" in without_token[0]
    assert ADVICE in without_token[0] and without_token[1].startswith("OAuth flow error Traceback")
    assert wrong_token[0].startswith("Error: unauthorized: The bearer token was not accepted")
    assert ADVICE in wrong_token[0] and wrong_token[1] == ""
    assert readme_outputs() == [without_token[0], wrong_token[0]]


def test_digests_in_a_setting_and_allowed_hosts_for_a_proxy(default_catalog_root: Path) -> None:
    settings = {
        "KGFEGMCP_AUTH_TOKEN_SHA256": json.dumps([DIGEST]),
        "KGFEGMCP_HTTP_ALLOWED_HOSTS": json.dumps(["curriculum.example"]),
    }
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with http_server(default_catalog_root, settings) as server:
        assert request(server.url, {**bearer, "Host": "curriculum.example"})[0] == 200
        assert request(server.url, {**bearer, "Host": "attacker.example"})[0] == 421  # the rebinding guard stays


def serve_public(extra: dict[str, str], root: Path) -> subprocess.CompletedProcess[str] | str:
    """Start on 0.0.0.0: the completed process when it refuses, else its log once it accepts connections
    (then it is stopped)."""
    port = free_port()
    command = [KGFEGMCP, "serve", "--transport", "http", "--host", "0.0.0.0", "--port", str(port)]
    env = {**full_env(root), "KGFEGMCP_LOG_LEVEL": "INFO", **extra}
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, cwd=REPOSITORY_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while process.poll() is None and not accepting(port):  # it refuses (exits), or it serves
                assert time.monotonic() < deadline, f"neither refused nor served within {START_TIMEOUT} s"
                time.sleep(0.1)
            refused = process.poll() is not None
        finally:
            stop(process)
        out.seek(0)
        log = out.read().decode(errors="replace")
    return subprocess.CompletedProcess(command, process.returncode, log, "") if refused else log


def test_a_public_address_without_authentication_refuses_to_start(default_catalog_root: Path) -> None:
    refused = serve_public({}, default_catalog_root)
    assert isinstance(refused, subprocess.CompletedProcess) and refused.returncode != 0
    assert "configuration_error: Refusing to serve HTTP on 0.0.0.0 without authentication" in refused.stdout
    assert "KGFEGMCP_ALLOW_UNAUTHENTICATED_PUBLIC_BIND" in refused.stdout


def test_the_operator_may_opt_out_and_is_warned(default_catalog_root: Path) -> None:
    served = serve_public({"KGFEGMCP_ALLOW_UNAUTHENTICATED_PUBLIC_BIND": "true"}, default_catalog_root)
    assert isinstance(served, str), served
    assert "WARNING" in served and "WITHOUT authentication" in served


def test_jwts_are_verified_for_issuer_audience_and_scopes(default_catalog_root: Path, tmp_path: Path) -> None:
    keys = RSAKeyPair.generate()
    public_key = tmp_path / "idp.pem"
    public_key.write_text(keys.public_key, encoding="utf-8")
    issuer, audience = "https://idp.school-network.example", "kgfegmcp"
    settings = {
        "KGFEGMCP_AUTH_JWT_PUBLIC_KEY_FILE": str(public_key),
        "KGFEGMCP_AUTH_JWT_ISSUER": issuer,
        "KGFEGMCP_AUTH_JWT_AUDIENCE": audience,
        "KGFEGMCP_AUTH_JWT_REQUIRED_SCOPES": json.dumps(["curriculum:read"]),
    }

    def bearer(**claims: object) -> dict[str, str]:
        token = keys.create_token(**{"issuer": issuer, "audience": audience, "scopes": ["curriculum:read"], **claims})
        return {"Authorization": f"Bearer {token}"}

    with http_server(default_catalog_root, settings) as server:
        assert request(server.url, bearer())[0] == 200
        assert request(server.url, bearer(audience="another-service"))[0] == 401
        assert request(server.url, bearer(issuer="https://attacker.example"))[0] == 401
        assert request(server.url, bearer(scopes=["other:scope"]))[0] in (401, 403)
        assert request(server.url, bearer(expires_in_seconds=-60))[0] == 401
        assert request(server.url)[0] == 401


def test_a_request_body_over_the_cap_is_refused_unread(default_catalog_root: Path) -> None:
    with http_server(default_catalog_root, {"KGFEGMCP_HTTP_MAX_BODY_BYTES": "2048"}) as server:
        assert request(server.url, body={**LIST_TOOLS, "padding": "x" * 100})[0] == 200
        status, _, body = request(server.url, body={**LIST_TOOLS, "padding": "x" * 4096})
        assert status == 413 and b"KGFEGMCP_HTTP_MAX_BODY_BYTES" in body
        # Without Content-Length (chunked), the cap holds too.
        host, port = server.url.removeprefix("http://").split("/")[0].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=15)
        chunks = (json.dumps({**LIST_TOOLS, "padding": "y" * 4096})[i : i + 512].encode() for i in range(0, 5000, 512))
        connection.request(
            "POST",
            "/mcp",
            body=chunks,
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
            encode_chunked=True,
        )
        assert connection.getresponse().status == 413
        connection.close()


def public_jwk(keys: RSAKeyPair, kid: str) -> dict[str, str]:
    """The public half of a test key pair as a JWK entry."""
    return {**RSAKey.import_key(keys.public_key).as_dict(private=False), "kid": kid, "alg": "RS256", "use": "sig"}


def test_jwts_are_verified_against_a_jwks_file_and_a_rotated_key_is_taken_up(
    default_catalog_root: Path, tmp_path: Path
) -> None:
    first, second = RSAKeyPair.generate(), RSAKeyPair.generate()
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [public_jwk(first, "2026-11")]}), encoding="utf-8")
    issuer, audience = "https://idp.school-network.example", "kgfegmcp"
    settings = {
        "KGFEGMCP_AUTH_JWT_JWKS_FILE": str(jwks),
        "KGFEGMCP_AUTH_JWT_ISSUER": issuer,
        "KGFEGMCP_AUTH_JWT_AUDIENCE": audience,
    }

    def bearer(keys: RSAKeyPair, kid: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {keys.create_token(issuer=issuer, audience=audience, kid=kid)}"}

    with http_server(default_catalog_root, settings) as server:
        assert request(server.url, bearer(first, "2026-11"))[0] == 200
        assert request(server.url, bearer(second, "2026-12"))[0] == 401  # a key the file does not hold
        assert request(server.url, bearer(second, "2026-11"))[0] == 401  # signed by another key than its kid's
        # The identity provider rotates: the operator replaces the file; no restart.
        jwks.write_text(
            json.dumps({"keys": [public_jwk(first, "2026-11"), public_jwk(second, "2026-12")]}), encoding="utf-8"
        )
        # The verifier re-reads the file at most once a second: the new key is taken up within a few tries.
        deadline = time.monotonic() + 30
        while request(server.url, bearer(second, "2026-12"))[0] != 200:
            assert time.monotonic() < deadline, "the rotated key was not taken up from the replaced file"
            time.sleep(0.1)
        assert request(server.url, bearer(first, "2026-11"))[0] == 200


def test_jwts_are_verified_against_a_jwks_url(default_catalog_root: Path, tmp_path: Path) -> None:
    keys = RSAKeyPair.generate()
    (tmp_path / "jwks.json").write_text(json.dumps({"keys": [public_jwk(keys, "idp-1")]}), encoding="utf-8")
    quiet = type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda *args: None})
    idp = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(quiet, directory=str(tmp_path)))
    threading.Thread(target=idp.serve_forever, daemon=True).start()
    issuer, audience = "https://idp.school-network.example", "kgfegmcp"
    settings = {
        "KGFEGMCP_AUTH_JWT_JWKS_URI": f"http://127.0.0.1:{idp.server_address[1]}/jwks.json",
        "KGFEGMCP_AUTH_JWT_ISSUER": issuer,
        "KGFEGMCP_AUTH_JWT_AUDIENCE": audience,
    }
    try:
        with http_server(default_catalog_root, settings) as server:
            token = keys.create_token(issuer=issuer, audience=audience, kid="idp-1")
            assert request(server.url, {"Authorization": f"Bearer {token}"})[0] == 200
            stranger = RSAKeyPair.generate().create_token(issuer=issuer, audience=audience, kid="idp-1")
            assert request(server.url, {"Authorization": f"Bearer {stranger}"})[0] == 401
    finally:
        idp.shutdown()
        idp.server_close()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(keys: RSAKeyPair, claims: dict[str, object], kid: str | None = None) -> str:
    """A JWT signed by ``keys`` with exactly ``claims`` (``RSAKeyPair.create_token`` always adds ``exp``)."""
    header = {"alg": "RS256", **({"kid": kid} if kid else {})}
    return jwt.encode(header, claims, RSAKey.import_key(keys.private_key.get_secret_value()))


def hostile_tokens(keys: RSAKeyPair, kid: str) -> dict[str, str]:
    """Tokens that must each be refused with 401: malformed, nested, oversized, or signed but unusable."""
    claims, signature = b64url(b'{"sub": "x"}'), b64url(b"not a signature")

    def with_header(header: bytes) -> str:
        return f"{b64url(header)}.{claims}.{signature}"

    return {
        # Nested past the interpreter's recursion limit within the length bound, and beyond it.
        "nested-object-header": with_header(b'{"a":' * 1500),
        "nested-list-header": with_header(b"[" * 6000),
        "nested-header-over-the-length-bound": with_header(b'{"a":' * 1000 + b"[" * 4000),
        # About 53 KB: what still passes the HTTP layer (uvicorn refuses a request head of about 64 KiB or more).
        "nested-header-far-over-the-bound": with_header(b"[" * 40_000),
        "oversized": with_header(json.dumps({"alg": "RS256", "kid": kid, "pad": "x" * 9000}).encode()),
        "garbage": "%%% not a token at all %%%",
        "not-utf-8-bytes": "\xff\xfe\xfd.\xff.\xff",
        "header-not-utf-8": with_header(b'{"alg": "RS256", "kid": "\xff"}'),
        "bad-base64": f"e30xx.{claims}.{signature}",
        "header-not-json": with_header(b"{not json"),
        "header-nan": with_header(b'{"alg": NaN}'),
        "header-a-list": with_header(b'["RS256"]'),
        "header-a-number": with_header(b"12"),
        "kid-a-list": with_header(json.dumps({"alg": "RS256", "kid": [kid]}).encode()),
        "kid-an-object": with_header(json.dumps({"alg": "RS256", "kid": {"id": kid}}).encode()),
        "alg-an-object": with_header(json.dumps({"alg": {"name": "RS256"}, "kid": kid}).encode()),
        "alg-none": with_header(json.dumps({"alg": "none", "kid": kid}).encode()),
        "crit-not-a-list": with_header(json.dumps({"alg": "RS256", "kid": kid, "crit": "exp"}).encode()),
        "many-segments": ".".join([b64url(b'{"alg": "RS256"}')] * 500),
        "two-segments": f"{b64url(b'{}')}.{claims}",
        "empty-segments": "..",
        "empty": "",
        # Signed with the right key, yet unusable: FastMCP raised OverflowError on an infinite expiry.
        "signed-infinite-expiry": signed(keys, {"sub": "x", "exp": float("inf")}, kid),
    }


def assert_refused_quietly(server: HttpServer, tokens: dict[str, str], valid: str) -> None:
    """Every token is a 401 with WWW-Authenticate, the log has no traceback, no ERROR and no token text, and
    the server still serves a valid token afterwards."""
    statuses = {}
    for name, token in tokens.items():
        status, headers, body = request(server.url, {"Authorization": f"Bearer {token}"})
        statuses[name] = (status, headers.get("www-authenticate", "").split(" ")[0])
        assert b"Traceback" not in body
    assert statuses == dict.fromkeys(tokens, (401, "Bearer"))
    assert request(server.url, {"Authorization": f"Bearer {valid}"})[0] == 200
    log = server.log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log
    assert [line for line in log.splitlines() if " ERROR " in line or '"ERROR"' in line] == []
    refusals = [line for line in log.splitlines() if "bearer token refused" in line]
    assert len(refusals) <= len(tokens) and all(len(line) < 300 for line in refusals)
    echoed = [name for name, token in tokens.items() if len(token) >= 24 and token[4:24] in log]
    assert echoed == []


@pytest.mark.parametrize("source", ["public-key", "jwks-file"])
def test_malformed_jwts_are_a_quiet_401_and_the_server_serves_on(
    default_catalog_root: Path, tmp_path: Path, source: str
) -> None:
    keys = RSAKeyPair.generate()
    if source == "public-key":
        key_file = tmp_path / "idp.pem"
        key_file.write_text(keys.public_key, encoding="utf-8")
        settings = {"KGFEGMCP_AUTH_JWT_PUBLIC_KEY_FILE": str(key_file)}
    else:
        key_file = tmp_path / "jwks.json"
        key_file.write_text(json.dumps({"keys": [public_jwk(keys, "idp-1")]}), encoding="utf-8")
        settings = {"KGFEGMCP_AUTH_JWT_JWKS_FILE": str(key_file)}
    with http_server(default_catalog_root, {**settings, "KGFEGMCP_LOG_LEVEL": "DEBUG"}) as server:
        assert_refused_quietly(server, hostile_tokens(keys, "idp-1"), keys.create_token(kid="idp-1"))


def test_a_jwt_without_an_expiry_is_refused_unless_allowed(default_catalog_root: Path, tmp_path: Path) -> None:
    keys = RSAKeyPair.generate()
    public_key = tmp_path / "idp.pem"
    public_key.write_text(keys.public_key, encoding="utf-8")
    settings = {"KGFEGMCP_AUTH_JWT_PUBLIC_KEY_FILE": str(public_key), "KGFEGMCP_LOG_LEVEL": "INFO"}
    forever = {"Authorization": f"Bearer {signed(keys, {'sub': 'service-account'})}"}
    with http_server(default_catalog_root, settings) as server:
        status, headers, _ = request(server.url, forever)
        assert status == 401 and headers["www-authenticate"].startswith("Bearer")
        assert request(server.url, {"Authorization": f"Bearer {keys.create_token()}"})[0] == 200
        assert "no expiry" in server.log.read_text(encoding="utf-8")
    with http_server(default_catalog_root, {**settings, "KGFEGMCP_AUTH_JWT_ALLOW_NO_EXPIRY": "true"}) as server:
        assert request(server.url, forever)[0] == 200
        assert request(server.url, {"Authorization": f"Bearer {signed(keys, {'sub': 'x', 'exp': 1})}"})[0] == 401
