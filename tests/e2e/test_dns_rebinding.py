"""A loopback-bound HTTP server refuses requests whose Host or Origin is not local (DNS rebinding), and the
allowed host and origin patterns match whole DNS labels only."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from e2e_support import KGFEGMCP, REPOSITORY_ROOT, HttpServer, free_port, full_env, http_server

pytestmark = pytest.mark.slow

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}


def post(url: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(INITIALIZE).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_local_host_is_served(default_http_server: HttpServer) -> None:
    assert post(default_http_server.url, {}) == 200


@pytest.mark.parametrize(
    "headers",
    [{"Host": "attacker.example"}, {"Origin": "http://attacker.example"}],
    ids=["foreign-host", "foreign-origin"],
)
def test_foreign_host_or_origin_is_refused(default_http_server: HttpServer, headers: dict[str, str]) -> None:
    assert 400 <= post(default_http_server.url, headers) < 500


def test_allowed_host_and_origin_patterns_match_whole_labels(default_catalog_root: Path) -> None:
    settings = {
        "KGFEGMCP_HTTP_ALLOWED_HOSTS": json.dumps(["*.example.org", "mcp.example.net"]),
        "KGFEGMCP_HTTP_ALLOWED_ORIGINS": json.dumps(["https://*.example.org"]),
    }
    with http_server(default_catalog_root, settings) as server:
        hosts = {
            host: post(server.url, {"Host": host})
            for host in [
                "mcp.example.org",
                "a.b.example.org:8443",
                "MCP.EXAMPLE.NET",
                "localhost:8765",
                "evilexample.org",  # a name anyone can register
                "example.org",  # `*.` stands for one label or more
                "mcp.example.net.attacker.org",
                ".example.org",  # fnmatch's `*` matches the empty prefix
                "evil.net/.example.org",
                "a b.example.org",
            ]
        }
        assert hosts == {
            "mcp.example.org": 200,
            "a.b.example.org:8443": 200,
            "MCP.EXAMPLE.NET": 200,
            "localhost:8765": 200,
            "evilexample.org": 421,
            "example.org": 421,
            "mcp.example.net.attacker.org": 421,
            ".example.org": 421,
            "evil.net/.example.org": 421,
            "a b.example.org": 421,
        }
        origins = {
            origin: post(server.url, {"Host": "mcp.example.org", "Origin": origin})
            for origin in [
                "https://app.example.org",
                "https://evilexample.org",
                "https://.example.org",
                "https://evil.net/.example.org:443",
                "http://app.example.org",
            ]
        }
        assert origins == {
            "https://app.example.org": 200,
            "https://evilexample.org": 403,
            "https://.example.org": 403,
            "https://evil.net/.example.org:443": 403,
            "http://app.example.org": 403,
        }
        assert post(server.url, {}) == 200  # the server's own address still passes


@pytest.mark.parametrize(
    ("variable", "patterns"),
    [
        ("KGFEGMCP_HTTP_ALLOWED_HOSTS", ["*example.org"]),
        ("KGFEGMCP_HTTP_ALLOWED_HOSTS", ["api.*"]),
        ("KGFEGMCP_HTTP_ALLOWED_HOSTS", ["mcp?.example.org"]),
        ("KGFEGMCP_HTTP_ALLOWED_ORIGINS", ["https://*example.org"]),
    ],
)
def test_a_pattern_that_could_match_part_of_a_label_stops_start_up(
    default_catalog_root: Path, variable: str, patterns: list[str]
) -> None:
    completed = subprocess.run(
        [KGFEGMCP, "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(free_port())],
        cwd=REPOSITORY_ROOT,
        env={**full_env(default_catalog_root), variable: json.dumps(patterns)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode != 0
    lines = completed.stderr.strip().splitlines()
    assert lines == [line for line in lines if line.startswith(f"configuration_error: Invalid settings: {variable}: ")]
    assert len(lines) == 1 and patterns[0] in lines[0] and "Traceback" not in completed.stderr
