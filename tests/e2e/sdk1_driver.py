"""Drive the server with the official MCP Python SDK 1.x (run with ``.venv-sdk1/bin/python``).

Usage::

    sdk1_driver.py stdio COMMAND [ARG ...]   # spawns the server; its KGFEGMCP_* settings come from our env
    sdk1_driver.py http URL                  # connects to a running Streamable HTTP server

Lists the tools, searches, pages through with ``nextRequest`` unchanged, fetches context, and
prints one JSON document for the test to assert on. Imports nothing from this project.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import sys
from contextlib import AsyncExitStack
from datetime import timedelta
from typing import Any

from mcp.client.stdio import stdio_client

from mcp import ClientSession, StdioServerParameters

try:  # newer 1.x names it streamable_http_client; older ones streamablehttp_client
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # pragma: no cover - depends on the installed 1.x release
    from mcp.client.streamable_http import streamablehttp_client as http_client

CONTINUE_PREFIX = "Continue with:\n"
TIMEOUT = timedelta(seconds=60)


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def continuation(result: Any) -> dict[str, Any] | None:
    for text in texts(result):
        if text.startswith(CONTINUE_PREFIX):
            return json.loads(text[len(CONTINUE_PREFIX) :])
    return None


async def run(session: ClientSession) -> dict[str, Any]:
    initialized = await session.initialize()
    tools = [tool.name for tool in (await session.list_tools()).tools]
    first = await session.call_tool("search_standards", {"request": {"query": "fracoes", "limit": 3}}, TIMEOUT)
    pages = [first.structuredContent]
    next_requests = []
    block = continuation(first)
    while block is not None and len(pages) < 100:
        next_requests.append(block["nextRequest"])
        result = await session.call_tool(block["continuationTool"], block["nextRequest"], TIMEOUT)
        if result.isError:
            raise SystemExit(f"page failed: {texts(result)}")
        pages.append(result.structuredContent)
        block = continuation(result)
    top = pages[0]["hits"][0]["standard"]
    context = await session.call_tool(
        "get_standard_context",
        {"request": {"frameworkId": top["graphPackageId"].split("@")[0], "nodeId": top["nodeId"]}},
        TIMEOUT,
    )
    invalid = await session.call_tool("search_standards", {"request": {"query": "fracoes", "limit": "3"}}, TIMEOUT)
    return {
        "sdkVersion": importlib.metadata.version("mcp"),
        "protocolVersion": str(initialized.protocolVersion),
        "tools": tools,
        "total": pages[0]["total"],
        "ids": [hit["standard"]["nodeId"] for page in pages for hit in page["hits"]],
        "lastPage": pages[-1]["page"],
        "nextRequests": next_requests,
        "firstPageText": texts(first)[0],
        "context": context.structuredContent,
        "contextIsError": context.isError,
        "invalidIsError": invalid.isError,
        "invalidText": texts(invalid)[0],
    }


async def main(argv: list[str]) -> dict[str, Any]:
    async with AsyncExitStack() as stack:
        if argv[0] == "stdio":
            env = {k: v for k, v in os.environ.items() if k.startswith("KGFEGMCP_") or k == "PYTHONPATH"}
            params = StdioServerParameters(command=argv[1], args=argv[2:], env=env)
            read, write = await stack.enter_async_context(stdio_client(params))
        elif argv[0] == "http":
            streams = await stack.enter_async_context(http_client(argv[1]))
            read, write = streams[0], streams[1]
        else:
            raise SystemExit(f"unknown transport {argv[0]!r}")
        session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=TIMEOUT))
        return await asyncio.wait_for(run(session), timeout=120)


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:])), ensure_ascii=False))
