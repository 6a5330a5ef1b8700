"""Drive the server with an official MCP Python SDK 1.x release (run with that release's Python).

Usage::

    sdk1_driver.py stdio COMMAND [ARG ...]   # spawns the server; its KGFEGMCP_* settings come from our env
    sdk1_driver.py http URL                  # connects to a running Streamable HTTP server

Works with every 1.x release the tests install, from 1.7.1 (protocol 2024-11-05, STDIO only) to the
newest: lists the tools, searches, pages through with ``nextRequest`` unchanged, fetches a standard,
its context, its stored progressions and its resource through ``read_evidence``, and prints one JSON
document for the test to assert on. Every result is parsed by the release's own models, so a result
it cannot read fails the run. A call's evidence is its ``structuredContent``, or, for a protocol
version without structured content, the one text block holding JSON. Imports nothing from this project.
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

try:  # newer 1.x names it streamable_http_client; 1.8-1.x streamablehttp_client; before 1.8 there is none
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # pragma: no cover - depends on the installed 1.x release
    try:
        from mcp.client.streamable_http import streamablehttp_client as http_client
    except ImportError:
        http_client = None

CONTINUE_PREFIX = "Continue with:\n"
TIMEOUT = timedelta(seconds=60)


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def continuation(result: Any) -> dict[str, Any] | None:
    for text in texts(result):
        if text.startswith(CONTINUE_PREFIX):
            return json.loads(text[len(CONTINUE_PREFIX) :])
    return None


def evidence(result: Any) -> Any:
    """The structured content, else the JSON object of the single text block that holds one."""
    structured = getattr(result, "structuredContent", None)  # absent from releases before 1.10
    if structured is not None:
        return structured
    documents = []
    for text in texts(result):
        if text.startswith("{"):
            documents.append(json.loads(text))
    if len(documents) != 1:
        raise SystemExit(f"expected one JSON text block, found {len(documents)}: {texts(result)}")
    return documents[0]


class Calls:
    """Calls tools and records, per call, the content block types and whether structured content came."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, name: str, arguments: dict[str, Any]) -> Any:
        result = await self.session.call_tool(name, arguments, TIMEOUT)
        self.seen.append(
            {
                "tool": name,
                "contentTypes": [block.type for block in result.content],
                "structured": getattr(result, "structuredContent", None) is not None,
                "isError": bool(result.isError),
            }
        )
        return result


async def run(session: ClientSession) -> dict[str, Any]:
    initialized = await session.initialize()
    listed = (await session.list_tools()).tools
    tools = [tool.name for tool in listed]
    # Releases from 1.10 validate each result against a declared schema; older ones keep no such field.
    output_schemas = [tool.name for tool in listed if getattr(tool, "outputSchema", None) is not None]
    call = Calls(session)
    first = await call("search_standards", {"request": {"query": "fracoes", "limit": 3}})
    pages = [evidence(first)]
    next_requests = []
    block = continuation(first)
    while block is not None and len(pages) < 100:
        next_requests.append(block["nextRequest"])
        result = await call(block["continuationTool"], block["nextRequest"])
        if result.isError:
            raise SystemExit(f"page failed: {texts(result)}")
        pages.append(evidence(result))
        block = continuation(result)
    top = pages[0]["hits"][0]
    package = pages[0]["packages"][top.get("package", 0)]
    selector = {"frameworkId": package["graphPackageId"].split("@")[0], "nodeId": top["nodeId"]}
    standard = await call("get_standard", {"request": selector})
    context = await call("get_standard_context", {"request": selector})
    progressions = await call("get_standard_progressions", {"request": selector})
    read = await call("read_evidence", {"request": {"uri": f"{package['uri']}/standard/{top['nodeId']}"}})
    invalid = await call("search_standards", {"request": {"query": "fracoes", "limit": "3"}})
    return {
        "sdkVersion": importlib.metadata.version("mcp"),
        "protocolVersion": str(initialized.protocolVersion),
        "capabilities": initialized.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True),
        "tools": tools,
        "outputSchemas": output_schemas,
        "total": pages[0]["total"],
        "ids": [hit["nodeId"] for page in pages for hit in page["hits"]],
        "lastPage": pages[-1]["page"],
        "nextRequests": next_requests,
        "firstPageText": texts(first)[0],
        "pages": pages,
        "standard": evidence(standard),
        "standardText": texts(standard)[0],
        "context": evidence(context),
        "contextIsError": context.isError,
        "progressions": evidence(progressions),
        "readEvidence": evidence(read),
        "invalidIsError": invalid.isError,
        "invalidText": texts(invalid)[0],
        "calls": call.seen,
    }


async def main(argv: list[str]) -> dict[str, Any]:
    async with AsyncExitStack() as stack:
        if argv[0] == "stdio":
            env = {k: v for k, v in os.environ.items() if k.startswith("KGFEGMCP_") or k == "PYTHONPATH"}
            params = StdioServerParameters(command=argv[1], args=argv[2:], env=env)
            read, write = await stack.enter_async_context(stdio_client(params))
        elif argv[0] == "http":
            if http_client is None:
                raise SystemExit(f"mcp {importlib.metadata.version('mcp')} has no Streamable HTTP client")
            streams = await stack.enter_async_context(http_client(argv[1]))
            read, write = streams[0], streams[1]
        else:
            raise SystemExit(f"unknown transport {argv[0]!r}")
        session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=TIMEOUT))
        return await asyncio.wait_for(run(session), timeout=120)


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:])), ensure_ascii=False))
