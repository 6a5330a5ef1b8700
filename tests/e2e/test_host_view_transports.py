"""Either view alone is enough over STDIO and HTTP, in every protocol version the server speaks.

A few representative calls (a paged search, a context with ancestors and root paths, a standard's
learning components) go to a real ``kgfegmcp serve`` subprocess over STDIO (one process per version:
``initialize`` negotiates it; 2026-07-28 names it on each request) and to the shared HTTP server on
127.0.0.1 (the ``MCP-Protocol-Version`` header names it). Each reply's text view must carry every
statement, licence, attribution and continuation of the answer the in-memory client gets; where the
version defines ``structuredContent`` that view must carry them too and equal the in-memory answer.
Before 2025-06-18 there is no structured content, so the text view is all a model can get.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_support import KGFEGMCP, HttpServer, full_env, stdio_exchange
from fastmcp import Client
from test_protocol_versions import OLD, SUPPORTED, message, post

from host_views import (
    PackageFacts,
    cites_evidence,
    package_facts,
    report,
    structured_view_problems,
    text_view_problems,
    views_of,
)

pytestmark = pytest.mark.slow

EF = "brazil-bncc-ensino-fundamental"
#: (tool, request, paged): representative answers with hits and a next page, ancestors and root paths, components.
CALLS: tuple[tuple[str, dict[str, Any], bool], ...] = (
    ("search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 3}, True),
    ("get_standard_context", {"frameworkId": EF, "statementCode": "EF05MA03"}, False),
    ("get_learning_components_for_standard", {"frameworkId": EF, "statementCode": "EF01CI01"}, False),
)
ENVELOPE_VERSION = "2026-07-28"  # no initialize: each request names its version in _meta
TIMEOUT = 60.0


def call_message(number: int, tool: str, request: dict[str, Any], version: str) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, "arguments": {"request": request}}
    if version == ENVELOPE_VERSION:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def stdio_results(root: Path, version: str, stderr_path: Path) -> list[dict[str, Any]]:
    """The tool results a STDIO server gives a client of ``version``."""
    opening: list[dict[str, Any]] = []
    if version != ENVELOPE_VERSION:
        opening = [
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "host", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ]
    calls = [call_message(n, tool, request, version) for n, (tool, request, _) in enumerate(CALLS, start=1)]
    command = [KGFEGMCP, "serve", "--transport", "stdio"]
    replies = stdio_exchange(command, full_env(root), opening + calls, stderr_path, TIMEOUT).replies
    if opening:
        assert replies[0]["result"]["protocolVersion"] == version, replies[0]
        replies = replies[1:]
    return [reply["result"] for reply in replies]


def http_results(server: HttpServer, version: str) -> list[dict[str, Any]]:
    """The tool results the HTTP server gives a request naming ``version``."""
    results = []
    for number, (tool, request, _) in enumerate(CALLS, start=1):
        extra = {"Mcp-Method": "tools/call", "Mcp-Name": tool} if version == ENVELOPE_VERSION else None
        response = post(server.url, call_message(number, tool, request, version), version, extra)
        assert response.status_code == 200, response.text
        results.append(message(response)["result"])
    return results


@pytest.fixture(scope="module")
def facts(default_catalog_root: Path) -> dict[str, PackageFacts]:
    return package_facts(default_catalog_root)


@pytest.fixture
async def expected(default_client: Client[Any]) -> list[dict[str, Any]]:
    """The structured content the in-memory client (newest version) gets for each call."""
    found = []
    for tool, request, _ in CALLS:
        result = await default_client.call_tool_mcp(tool, {"request": request})
        assert isinstance(result.structured_content, dict), tool
        found.append(result.structured_content)
    return found


RUNS = [(transport, version) for transport in ("stdio", "http") for version in SUPPORTED]


@pytest.mark.parametrize(("transport", "version"), RUNS, ids=[f"{t}-{v}" for t, v in RUNS])
def test_each_view_alone_is_enough_on_every_transport_and_version(
    default_catalog_root: Path,
    default_http_server: HttpServer,
    expected: list[dict[str, Any]],
    facts: dict[str, PackageFacts],
    tmp_path: Path,
    transport: str,
    version: str,
) -> None:
    if transport == "stdio":
        results = stdio_results(default_catalog_root, version, tmp_path / "stderr.log")
    else:
        results = http_results(default_http_server, version)
    problems = []
    for (tool, _, paged), result, answer in zip(CALLS, results, expected, strict=True):
        views = views_of(result)
        assert not result.get("isError"), f"{tool}: {views.text}"
        cites = cites_evidence(tool, answer)
        found = text_view_problems(views.blocks, answer, facts, cites=cites, paged=paged)
        if version in OLD:
            if views.structured is not None:
                found.append("structured content sent to a version that does not define it")
        else:
            found += structured_view_problems(views.structured, views.text, facts, cites=cites, paged=paged)
            if views.structured != answer:
                found.append("structured content differs from the in-memory client's")
        problems += [f"{tool}: {problem}" for problem in found]
    assert not problems, report(f"{transport} {version}", problems)
