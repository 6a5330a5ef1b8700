"""Call helpers for the in-memory client: results, public errors, continuation blocks, exact wire text."""

from __future__ import annotations

import json
from typing import Any

from fastmcp import Client
from fastmcp.client.client import CallToolResult
from mcp.types import TextContent

CONTINUE_PREFIX = "Continue with:\n"


async def call(client: Client[Any], tool: str, request: dict[str, Any]) -> CallToolResult:
    """A successful call (fails the test with the server's message otherwise)."""
    result = await client.call_tool(tool, {"request": request}, raise_on_error=False)
    assert not result.is_error, texts(result)
    assert isinstance(result.structured_content, dict)
    return result


async def error(client: Client[Any], tool: str, request: dict[str, Any]) -> str:
    """The public error text of a failing call."""
    result = await client.call_tool(tool, {"request": request}, raise_on_error=False)
    assert result.is_error, f"{tool} unexpectedly succeeded"
    assert result.structured_content is None
    (text,) = texts(result)
    return text


async def error_code(client: Client[Any], tool: str, request: dict[str, Any]) -> str:
    """Only the stable code of a failing call's public message."""
    text = await error(client, tool, request)
    code, sep, _ = text.partition(": ")
    assert sep, f"not '<code>: <message>': {text!r}"
    return code


def wire(result: CallToolResult) -> str:
    """Everything the client received, rendered byte-exactly (key order included)."""
    blocks = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
    return json.dumps({"content": blocks, "structuredContent": result.structured_content}, ensure_ascii=False)


def texts(result: CallToolResult) -> list[str]:
    """Every text block of a result, in order."""
    return [block.text for block in result.content if isinstance(block, TextContent)]


def continuation(result: CallToolResult) -> dict[str, Any] | None:
    """The parsed ``continuationTool``/``nextRequest`` block, or ``None`` when absent."""
    found = [t for t in texts(result) if t.startswith(CONTINUE_PREFIX)]
    assert len(found) <= 1
    return json.loads(found[0][len(CONTINUE_PREFIX) :]) if found else None


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content (asserted present)."""
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def page_through(client: Client[Any], tool: str, request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of a paged tool, replaying ``nextRequest`` unchanged until the block is absent."""
    first = await call(client, tool, request)
    pages = [structured(first)]
    block = continuation(first)
    while block is not None:
        assert block["continuationTool"] == tool
        result = await client.call_tool(block["continuationTool"], block["nextRequest"], raise_on_error=False)
        assert not result.is_error, texts(result)
        pages.append(structured(result))
        block = continuation(result)
        assert len(pages) < 500, "paging did not terminate"
    return pages
