"""A loopback-bound HTTP server refuses requests whose Host or Origin is not local (DNS rebinding)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from e2e_support import HttpServer

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
