"""The server as a real subprocess over STDIO and Streamable HTTP, driven by three client libraries.

Each run lists the tools, searches, pages through with ``nextRequest`` unchanged and fetches
context; every transport and client must see exactly what the in-memory reference sees.
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    CATALOG_AND_STANDARDS_TOOLS,
    KGFEGMCP,
    REPOSITORY_ROOT,
    SDK1_PYTHON,
    HttpServer,
    Reply,
    fastmcp_caller,
    full_env,
    http_server,
    run_sdk_driver,
    scenario,
    server_env,
)
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession

pytestmark = pytest.mark.slow

SCENARIO_TIMEOUT = 120


def assert_same(seen: dict[str, Any], reference: dict[str, Any]) -> None:
    assert seen["ids"] == reference["ids"]
    assert seen["nextRequests"] == reference["nextRequests"]
    assert seen["firstPageText"] == reference["firstPageText"]
    assert seen["context"] == reference["context"]


def sdk_caller(session: ClientSession) -> Any:
    """The scenario's ``call_tool`` over the official SDK 2.x session."""

    async def call_tool(name: str, arguments: dict[str, Any]) -> Reply:
        result = await session.call_tool(name, arguments, read_timeout_seconds=60)
        texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
        return Reply(texts, result.structured_content, bool(result.is_error))

    return call_tool


async def sdk_scenario(session: ClientSession) -> dict[str, Any]:
    await session.initialize()
    names = [tool.name for tool in (await session.list_tools()).tools]
    return await scenario(names, sdk_caller(session))


async def test_stdio_with_fastmcp_client(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    transport = StdioTransport(
        command=KGFEGMCP,
        args=["serve", "--transport", "stdio"],
        env=server_env(default_catalog_root),
        cwd=str(REPOSITORY_ROOT),
        keep_alive=False,
    )
    async with asyncio.timeout(SCENARIO_TIMEOUT), Client(transport) as client:
        names = [tool.name for tool in await client.list_tools()]
        assert_same(await scenario(names, fastmcp_caller(client)), reference)


async def test_stdio_with_official_sdk_client(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    params = StdioServerParameters(
        command=KGFEGMCP,
        args=["serve", "--transport", "stdio"],
        env=server_env(default_catalog_root),
        cwd=REPOSITORY_ROOT,
    )
    async with (
        asyncio.timeout(SCENARIO_TIMEOUT),
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        assert_same(await sdk_scenario(session), reference)


async def test_http_with_fastmcp_client(default_http_server: HttpServer, reference: dict[str, Any]) -> None:
    async with asyncio.timeout(SCENARIO_TIMEOUT), Client(default_http_server.url) as client:
        names = [tool.name for tool in await client.list_tools()]
        assert_same(await scenario(names, fastmcp_caller(client)), reference)


async def test_http_with_official_sdk_client(default_http_server: HttpServer, reference: dict[str, Any]) -> None:
    async with asyncio.timeout(SCENARIO_TIMEOUT), streamable_http_client(default_http_server.url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, read_timeout_seconds=60) as session:
            assert_same(await sdk_scenario(session), reference)


def assert_sdk1(seen: dict[str, Any], reference: dict[str, Any]) -> None:
    assert seen["sdkVersion"].startswith("1.")
    assert [name for name in seen["tools"] if name in CATALOG_AND_STANDARDS_TOOLS] == CATALOG_AND_STANDARDS_TOOLS
    assert seen["total"] == len(seen["ids"]) == len(set(seen["ids"]))
    assert seen["lastPage"]["hasMore"] is False
    assert seen["contextIsError"] is False
    assert seen["invalidIsError"] is True and seen["invalidText"].startswith("invalid_request: ")
    assert_same(seen, reference)


def test_stdio_with_sdk1_client(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    env = {**full_env(default_catalog_root), "PATH": os.environ.get("PATH", "")}
    seen = run_sdk_driver(SDK1_PYTHON, ["stdio", KGFEGMCP, "serve", "--transport", "stdio"], env)
    assert_sdk1(seen, reference)


def test_http_with_sdk1_client(default_http_server: HttpServer, reference: dict[str, Any]) -> None:
    seen = run_sdk_driver(SDK1_PYTHON, ["http", default_http_server.url], dict(os.environ))
    assert_sdk1(seen, reference)


def post_framing(url: str) -> str:
    """The Content-Type a tools/list POST is answered with."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=30) as answer:
        return str(answer.headers["Content-Type"]).split(";")[0]


async def test_plain_json_answers_when_the_operator_asks(default_catalog_root: Path, reference: dict[str, Any]) -> None:
    # FastMCP's own variable must not change the framing: the server declares it.
    with http_server(default_catalog_root, {"FASTMCP_JSON_RESPONSE": "true"}) as server:
        assert post_framing(server.url) == "text/event-stream"
    with http_server(default_catalog_root, {"KGFEGMCP_HTTP_JSON_RESPONSE": "true"}) as server:
        assert post_framing(server.url) == "application/json"
        async with asyncio.timeout(SCENARIO_TIMEOUT), Client(server.url) as client:
            names = [tool.name for tool in await client.list_tools()]
            assert_same(await scenario(names, fastmcp_caller(client)), reference)
        async with asyncio.timeout(SCENARIO_TIMEOUT), streamable_http_client(server.url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, read_timeout_seconds=60) as session:
                assert_same(await sdk_scenario(session), reference)
        assert_sdk1(run_sdk_driver(SDK1_PYTHON, ["http", server.url], dict(os.environ)), reference)
