"""Every protocol version the server speaks, seen by real clients of that era and by raw HTTP requests.

Clients of 2024-11-05 and 2025-03-26 (official SDK 1.7.1 and 1.9.4, each in its own environment made
by scripts/install_dev.sh) must parse every result, get no ``resource_link`` block and no structured
content, and still receive the whole evidence: the JSON text they get parses to exactly the structured
content a current client gets. Capabilities claim no list changes, and an HTTP request naming a
version the server does not speak gets a 400 that lists the ones it does.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    CATALOG_AND_STANDARDS_TOOLS,
    KGFEGMCP,
    REPOSITORY_ROOT,
    SDK1_PYTHON,
    SEARCH_REQUEST,
    HttpServer,
    full_env,
    run_sdk_driver,
)
from fastmcp import Client

pytestmark = pytest.mark.slow

EF = "brazil-bncc-ensino-fundamental"
#: Each supported handshake-era version, with the official client release of that era that negotiates it.
CLIENTS: dict[str, Path] = {
    "2024-11-05": REPOSITORY_ROOT / ".venv-mcp-2024-11-05" / "bin" / "python",
    "2025-03-26": REPOSITORY_ROOT / ".venv-mcp-2025-03-26" / "bin" / "python",
    "2025-11-25": SDK1_PYTHON,
}
CLIENT_RELEASES = {"2024-11-05": "1.7.1", "2025-03-26": "1.9.4"}
OLD = ("2024-11-05", "2025-03-26")
SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
#: (version, transport): 1.7.1 has no Streamable HTTP client (its era's HTTP transport is SSE, not served).
RUNS = [("2024-11-05", "stdio"), ("2025-03-26", "stdio"), ("2025-03-26", "http"), ("2025-11-25", "stdio")]
GET_STANDARD = {"frameworkId": EF, "statementCode": "EF06MA07"}


async def structured(client: Client[Any], tool: str, request: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, {"request": request}, timeout=60)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.fixture
async def expected(default_client: Client[Any]) -> dict[str, Any]:
    """What a current client gets as structured content for each call the driver makes."""
    first = await default_client.call_tool("search_standards", {"request": SEARCH_REQUEST}, timeout=60)
    assert isinstance(first.structured_content, dict)
    top = first.structured_content["hits"][0]
    package = first.structured_content["packages"][top.get("package", 0)]
    selector = {"frameworkId": package["graphPackageId"].split("@")[0], "nodeId": top["nodeId"]}
    progressions = await structured(default_client, "get_standard_progressions", selector)
    assert progressions["links"], "the scenario's standard must have stored progression links"
    return {
        "firstPage": first.structured_content,
        "firstPageText": first.content[0].text,  # type: ignore[union-attr]
        "standard": await structured(default_client, "get_standard", selector),
        "context": await structured(default_client, "get_standard_context", selector),
        "progressions": progressions,
        "readEvidence": await structured(
            default_client, "read_evidence", {"uri": f"{package['uri']}/standard/{top['nodeId']}"}
        ),
    }


@pytest.mark.parametrize(("version", "transport"), RUNS, ids=[f"{v}-{t}" for v, t in RUNS])
def test_client_of_each_era_reads_every_result(
    default_catalog_root: Path, default_http_server: HttpServer, expected: dict[str, Any], version: str, transport: str
) -> None:
    if transport == "stdio":
        env = {**full_env(default_catalog_root), "PATH": os.environ.get("PATH", "")}
        seen = run_sdk_driver(CLIENTS[version], ["stdio", KGFEGMCP, "serve", "--transport", "stdio"], env)
    else:
        seen = run_sdk_driver(CLIENTS[version], ["http", default_http_server.url], dict(os.environ))
    assert seen["protocolVersion"] == version
    for name in ("tools", "prompts", "resources"):  # the surface never changes: no list-change claims
        assert seen["capabilities"][name].get("listChanged") is not True, seen["capabilities"]
    if version in CLIENT_RELEASES:
        assert seen["sdkVersion"] == CLIENT_RELEASES[version]
    assert [name for name in seen["tools"] if name in CATALOG_AND_STANDARDS_TOOLS] == CATALOG_AND_STANDARDS_TOOLS
    # The evidence is whole in every era: the summary is unchanged and the evidence equals the structured content.
    assert seen["firstPageText"] == expected["firstPageText"]
    assert seen["pages"][0] == expected["firstPage"]
    assert seen["total"] == len(seen["ids"]) == len(set(seen["ids"])) > 3
    assert seen["lastPage"]["hasMore"] is False
    for name in ("standard", "context", "progressions", "readEvidence"):
        assert seen[name] == expected[name], name
    assert seen["invalidIsError"] is True and seen["invalidText"].startswith("invalid_request: ")
    calls = [call for call in seen["calls"] if not call["isError"]]
    if version in OLD:
        assert all("resource_link" not in call["contentTypes"] for call in calls), calls
        assert not any(call["structured"] for call in calls), calls
        assert seen["outputSchemas"] == []  # results without structured content: no schema to hold them to
    else:
        assert all(call["structured"] for call in calls), calls
        assert any("resource_link" in call["contentTypes"] for call in calls), calls
        assert seen["outputSchemas"] == seen["tools"]  # and the SDK validated every result against its schema


# -- raw HTTP ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Response:
    status_code: int
    text: str


def post(url: str, body: dict[str, Any], version: str | None, extra: dict[str, str] | None = None) -> Response:
    """One POST; a header value is sent as its bytes (``http.client`` encodes header text as Latin-1)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if version is not None:
        headers["MCP-Protocol-Version"] = version.encode("utf-8").decode("latin-1")
    request = urllib.request.Request(url, json.dumps(body).encode(), {**headers, **(extra or {})}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return Response(response.status, response.read().decode())
    except urllib.error.HTTPError as refused:
        return Response(refused.code, refused.read().decode())


def message(response: Response) -> dict[str, Any]:
    text = response.text
    payload = text.split("data: ", 1)[1] if text.startswith("event:") else text  # SSE or JSON
    decoded: dict[str, Any] = json.loads(payload.strip().splitlines()[0])
    return decoded


def call_get_standard(url: str, version: str | None) -> Response:
    params: dict[str, Any] = {"name": "get_standard", "arguments": {"request": GET_STANDARD}}
    extra = None
    if version == "2026-07-28":  # the per-request envelope of that version
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        extra = {"Mcp-Method": "tools/call", "Mcp-Name": "get_standard"}
    return post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, version, extra)


@pytest.mark.parametrize("version", [*SUPPORTED, None], ids=[*SUPPORTED, "no-header"])
def test_http_result_shape_follows_the_header(default_http_server: HttpServer, version: str | None) -> None:
    first = call_get_standard(default_http_server.url, version)
    again = call_get_standard(default_http_server.url, version)
    assert first.status_code == 200, first.text
    assert first.text == again.text  # same packages, request and version: byte-identical
    result = message(first)["result"]
    types = [block["type"] for block in result["content"]]
    if version in (*OLD, None):  # no header means 2025-03-26
        assert "structuredContent" not in result and "resource_link" not in types, types
        assert types == ["text", "text"]
        assert json.loads(result["content"][1]["text"]) == expected_standard(default_http_server.url)
    else:
        assert types == ["text", "resource_link"]  # the standard (its provenance: the URI + /provenance)
        assert result["structuredContent"] == expected_standard(default_http_server.url)


@pytest.mark.parametrize("version", [*SUPPORTED, None], ids=[*SUPPORTED, "no-header"])
def test_http_tools_list_declares_output_schemas_where_results_carry_structured_content(
    default_http_server: HttpServer, version: str | None
) -> None:
    params: dict[str, Any] = {}
    extra = None
    if version == "2026-07-28":  # the per-request envelope of that version
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        extra = {"Mcp-Method": "tools/list"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
    response = post(default_http_server.url, body, version, extra)
    assert response.status_code == 200, response.text
    tools = message(response)["result"]["tools"]
    assert len(tools) == 19
    declared = [tool["name"] for tool in tools if "outputSchema" in tool]
    assert declared == ([] if version in (*OLD, None) else [tool["name"] for tool in tools])


def expected_standard(url: str) -> dict[str, Any]:
    result = message(call_get_standard(url, "2025-11-25"))["result"]
    structured: dict[str, Any] = result["structuredContent"]
    return structured


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_capabilities_claim_no_list_changes(default_http_server: HttpServer, version: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
    }
    result = message(post(default_http_server.url, body, None))["result"]
    assert result["protocolVersion"] == version
    capabilities = result["capabilities"]
    for name in ("tools", "prompts", "resources"):
        assert capabilities[name].get("listChanged") is not True, capabilities
    assert capabilities["resources"].get("subscribe") is not True


@pytest.mark.parametrize("requested", ["1999-01-01", "2027-01-01", "", "x" * 5000 + "\u2028"])
@pytest.mark.parametrize("method", ["tools/list", "initialize"])
def test_unsupported_protocol_version_header_is_400_naming_the_supported(
    default_http_server: HttpServer, requested: str, method: str
) -> None:
    params: dict[str, Any] = {}
    if method == "initialize":
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    response = post(default_http_server.url, {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}, requested)
    assert response.status_code == 400, response.text
    error = message(response)["error"]
    assert error["message"].startswith("invalid_request: MCP-Protocol-Version ")
    for version in SUPPORTED:
        assert version in error["message"]
    assert " Next action: " in error["message"]
    assert len(error["message"]) < 600  # a header of any length is only echoed clipped
    assert error["data"]["supported"] == list(SUPPORTED)
    assert len(error["data"]["requested"]) < 200
