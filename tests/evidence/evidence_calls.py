"""Call helpers for the evidence tests: results, public errors, the whole-result size."""

from __future__ import annotations

import json
from typing import Any

from fastmcp import Client
from fastmcp.client.client import CallToolResult
from mcp.types import TextContent

from kgfegmcp.services.ceiling import RESULT_MAX_BYTES, RESULT_MAX_CHARS


async def call(client: Client[Any], tool: str, request: dict[str, Any]) -> CallToolResult:
    """A successful call (fails the test with the server's message otherwise)."""
    result = await client.call_tool(tool, {"request": request}, raise_on_error=False)
    assert not result.is_error, texts(result)
    assert isinstance(result.structured_content, dict)
    return result


async def error_code(client: Client[Any], tool: str, request: dict[str, Any]) -> str:
    """The stable code of a failing call's public ``<code>: <message>``."""
    result = await client.call_tool(tool, {"request": request}, raise_on_error=False)
    assert result.is_error, f"{tool} unexpectedly succeeded"
    (text,) = texts(result)
    code, sep, _ = text.partition(": ")
    assert sep, f"not '<code>: <message>': {text!r}"
    return code


def texts(result: CallToolResult) -> list[str]:
    """Every text block of a result, in order."""
    return [block.text for block in result.content if isinstance(block, TextContent)]


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content (asserted present)."""
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def assert_canonical_within_ceiling(result: CallToolResult) -> dict[str, Any]:
    """A progression result: one text block, the complete JSON of the structured content, within the ceiling."""
    content = structured(result)
    (text,) = texts(result)
    assert len(result.content) == 1
    assert json.loads(text) == content
    wire_structured = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    assert len(text) + len(wire_structured) <= RESULT_MAX_CHARS
    assert len(text.encode()) + len(wire_structured.encode()) <= RESULT_MAX_BYTES
    return content
