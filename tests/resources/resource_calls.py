"""Helpers for reading resources and calling read_evidence through the in-memory client."""

from __future__ import annotations

import base64
import json
from typing import Any

from fastmcp import Client
from mcp.types import BlobResourceContents, TextContent, TextResourceContents

from mcp import MCPError


async def read(client: Client[Any], uri: str) -> tuple[bytes, dict[str, Any]]:
    """The exact document bytes and their metadata (fails the test with the server's message otherwise)."""
    contents = await client.read_resource(uri)
    assert len(contents) == 1
    (content,) = contents
    meta = (content.meta or {}).get("kgfegmcp")
    assert isinstance(meta, dict), content.meta
    if isinstance(content, TextResourceContents):
        return content.text.encode("utf-8"), meta
    assert isinstance(content, BlobResourceContents)
    return base64.b64decode(content.blob), meta


async def read_error(client: Client[Any], uri: str, *, raw: bool = False) -> str:
    """The public ``<code>: <message>`` of a refused read.

    ``raw`` sends the URI exactly as given (the client normally normalises it as a URL first, e.g.
    resolving ``..`` segments), so the server's own parser is what is tested.
    """
    try:
        if raw:
            await client.session.read_resource(uri)
        else:
            await client.read_resource(uri)
    except MCPError as exc:
        return exc.error.message
    raise AssertionError(f"reading {uri!r} unexpectedly succeeded")


async def read_code(client: Client[Any], uri: str, *, raw: bool = False) -> str:
    """Only the stable code of a refused read."""
    message = await read_error(client, uri, raw=raw)
    code, sep, _ = message.partition(": ")
    assert sep, f"not '<code>: <message>': {message!r}"
    return code


async def outcome(client: Client[Any], uri: str) -> str:
    """``ok`` or the stable error code of one read."""
    try:
        await client.read_resource(uri)
    except MCPError as exc:
        code, sep, _ = exc.error.message.partition(": ")
        assert sep, exc.error.message
        return code
    return "ok"


async def evidence(client: Client[Any], request: dict[str, Any]) -> dict[str, Any]:
    """One successful read_evidence result; its text block must be exactly the canonical JSON."""
    result = await client.call_tool("read_evidence", {"request": request}, raise_on_error=False)
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    assert not result.is_error, texts
    assert isinstance(result.structured_content, dict)
    assert len(result.content) == 1
    assert json.loads(texts[0]) == result.structured_content
    assert texts[0] == json.dumps(result.structured_content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return result.structured_content


async def evidence_code(client: Client[Any], request: dict[str, Any]) -> str:
    """The stable code of a refused read_evidence call."""
    result = await client.call_tool("read_evidence", {"request": request}, raise_on_error=False)
    assert result.is_error, "read_evidence unexpectedly succeeded"
    (text,) = [block.text for block in result.content if isinstance(block, TextContent)]
    code, sep, _ = text.partition(": ")
    assert sep, text
    return code


async def read_all_windows(client: Client[Any], uri: str, window_bytes: int | None = None) -> list[dict[str, Any]]:
    """Every window of one resource, following page.nextCursor with the same uri and windowBytes."""
    request: dict[str, Any] = {"uri": uri}
    if window_bytes is not None:
        request["windowBytes"] = window_bytes
    results = [await evidence(client, request)]
    while results[-1]["page"]["hasMore"]:
        results.append(await evidence(client, {**request, "cursor": results[-1]["page"]["nextCursor"]}))
        assert len(results) < 20_000, "paging did not terminate"
    return results


async def evidence_outcome(client: Client[Any], uri: str) -> str:
    """``ok`` or the stable error code of read_evidence's first window of ``uri``."""
    result = await client.call_tool("read_evidence", {"request": {"uri": uri}}, raise_on_error=False)
    if not result.is_error:
        return "ok"
    (text,) = [block.text for block in result.content if isinstance(block, TextContent)]
    code, sep, _ = text.partition(": ")
    assert sep, text
    return code
