"""Who is listed the curriculum map, over STDIO and stateless HTTP, in every protocol era.

A client whose capabilities are known and lack ``io.modelcontextprotocol/ui`` is listed exactly what it was
before the view existed; a client that declares it (under ``extensions``, or ``experimental`` as hosts
double-tag) is listed the five links and the ``ui://`` resource. Over stateless HTTP a client before
2026-07-28 declared its capabilities on an ``initialize`` the server no longer holds: it is listed the view
(a host that renders no MCP Apps ignores ``_meta.ui``), or a host such as a remote connector could never
show it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_support import KGFEGMCP, HttpServer, full_env, stdio_exchange
from test_protocol_versions import SUPPORTED, message, post

from kgfegmcp.mcp.curriculum_map import MAP_URI
from kgfegmcp.mcp.tools import TOOLS

pytestmark = pytest.mark.slow

#: The rows that link the view (tests/mcp/test_curriculum_map.py pins them to the five graph tools).
GRAPH_TOOLS = {tool.name for tool in TOOLS if tool.draws_map}
UI = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
ENVELOPE_VERSION = "2026-07-28"
HANDSHAKE_VERSIONS = [version for version in SUPPORTED if version != ENVELOPE_VERSION]
#: Ways a client states its capabilities: none, the extension under ``extensions``, under ``experimental``.
DECLARATIONS: dict[str, dict[str, Any]] = {
    "without": {},
    "extensions": {"extensions": UI},
    "experimental": {"experimental": UI},
}
TIMEOUT = 60.0


def _listed(tools: list[dict[str, Any]], resources: list[dict[str, Any]]) -> tuple[set[str], bool]:
    """The tools listed with the view's link, and whether the view itself is listed."""
    linked = {tool["name"] for tool in tools if (tool.get("_meta") or {}).get("ui") == {"resourceUri": MAP_URI}}
    return linked, MAP_URI in {resource["uri"] for resource in resources}


def _expected(declaration: str) -> tuple[set[str], bool]:
    return (set(), False) if declaration == "without" else (GRAPH_TOOLS, True)


def _http_lists(server: HttpServer, version: str | None, capabilities: dict[str, Any] | None) -> tuple[set[str], bool]:
    answers = []
    for number, method in enumerate(("tools/list", "resources/list"), start=1):
        params: dict[str, Any] = {}
        extra = None
        if capabilities is not None:  # the per-request envelope of 2026-07-28
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientCapabilities": capabilities,
            }
            extra = {"Mcp-Method": method}
        response = post(
            server.url, {"jsonrpc": "2.0", "id": number, "method": method, "params": params}, version, extra
        )
        assert response.status_code == 200, response.text
        answers.append(message(response)["result"])
    return _listed(answers[0]["tools"], answers[1]["resources"])


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, None], ids=[*HANDSHAKE_VERSIONS, "no-header"])
def test_a_stateless_http_client_before_2026_is_listed_the_view(
    default_http_server: HttpServer, version: str | None
) -> None:
    assert _http_lists(default_http_server, version, None) == (GRAPH_TOOLS, True)


@pytest.mark.parametrize("declaration", DECLARATIONS)
def test_a_2026_http_client_is_listed_the_view_as_its_envelope_declares(
    default_http_server: HttpServer, declaration: str
) -> None:
    listed = _http_lists(default_http_server, ENVELOPE_VERSION, DECLARATIONS[declaration])
    assert listed == _expected(declaration)


@pytest.mark.parametrize("declaration", DECLARATIONS)
def test_a_stdio_client_is_listed_the_view_as_its_initialize_declares(
    default_catalog_root: Path, tmp_path: Path, declaration: str
) -> None:
    initialize = {
        "protocolVersion": "2025-11-25",
        "capabilities": DECLARATIONS[declaration],
        "clientInfo": {"name": "host", "version": "1"},
    }
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {}},
    ]
    command = [KGFEGMCP, "serve", "--transport", "stdio"]
    replies = stdio_exchange(command, full_env(default_catalog_root), messages, tmp_path / "stderr", TIMEOUT).replies
    assert replies[0]["result"]["protocolVersion"] == "2025-11-25", replies[0]
    assert _listed(replies[1]["result"]["tools"], replies[2]["result"]["resources"]) == _expected(declaration)
