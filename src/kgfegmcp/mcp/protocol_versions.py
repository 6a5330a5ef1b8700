"""What each MCP protocol version may receive, and the one place tool results are shaped to it.

Tool handlers build the full result of the newest protocol: text, ``resource_link`` blocks and
``structuredContent``. Versions before 2025-06-18 define neither of the last two, and their clients
reject a result that carries a ``resource_link`` block. :class:`ProtocolVersionMiddleware` shapes
every tool result by the version of the request (negotiated at ``initialize`` over STDIO, named by
the ``MCP-Protocol-Version`` header over stateless HTTP, 2025-03-26 when the header is absent). Such
a client gets the structured content as one canonical JSON text block instead, so text-only clients
still receive the whole evidence; a dropped link whose URI that JSON does not hold is listed in text.
Its ``tools/list`` declares no ``outputSchema`` either (the field came with structured content): a
client that validates results against a declared schema would otherwise refuse every one of them.
:class:`UnsupportedProtocolVersionGuard` answers an HTTP request naming a version outside the table
with a 400 that lists the supported ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

import mcp.types as mt
from fastmcp.server.context import Context
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import Tool, ToolResult
from mcp.types import ContentBlock, ResourceLink, TextContent
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from kgfegmcp.core.errors import InvalidRequestError, echo
from kgfegmcp.core.rendering import canonical_text


@dataclass(frozen=True)
class ProtocolFeatures:
    """The optional tool-result parts one protocol version defines."""

    resource_links: bool
    #: ``structuredContent`` in tool results, and ``outputSchema`` (which describes it) in ``tools/list``.
    structured_content: bool


#: Every protocol version this server speaks, oldest first, with what its tool results may carry.
PROTOCOL_VERSIONS: Final[Mapping[str, ProtocolFeatures]] = MappingProxyType(
    {
        "2024-11-05": ProtocolFeatures(resource_links=False, structured_content=False),
        "2025-03-26": ProtocolFeatures(resource_links=False, structured_content=False),
        "2025-06-18": ProtocolFeatures(resource_links=True, structured_content=True),
        "2025-11-25": ProtocolFeatures(resource_links=True, structured_content=True),
        "2026-07-28": ProtocolFeatures(resource_links=True, structured_content=True),
    }
)
SUPPORTED_VERSIONS: Final[tuple[str, ...]] = tuple(PROTOCOL_VERSIONS)
_HEADER: Final = b"mcp-protocol-version"


def features(version: str) -> ProtocolFeatures:
    """What ``version`` defines; a version outside the table gets the oldest, most widely readable shape."""
    return PROTOCOL_VERSIONS.get(version, PROTOCOL_VERSIONS[SUPPORTED_VERSIONS[0]])


def _strings(value: Any) -> Iterator[str]:
    """Every string value inside a JSON document."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def shape_tool_result(result: ToolResult, version: str) -> ToolResult:
    """``result`` as ``version`` defines it; unchanged for versions that define every part.

    Deterministic: the same result and version always give the same blocks in the same order.
    """
    allowed = features(version)
    if allowed.resource_links and allowed.structured_content:
        return result
    structured = result.structured_content
    content: list[ContentBlock] = []
    dropped: list[ResourceLink] = []
    for block in result.content:
        if isinstance(block, ResourceLink) and not allowed.resource_links:
            dropped.append(block)
        else:
            content.append(block)
    if structured is not None and not allowed.structured_content:
        evidence = canonical_text(structured)
        if not any(isinstance(block, TextContent) and block.text == evidence for block in content):
            content.append(TextContent(type="text", text=evidence))
    known = set(_strings(structured))
    unlisted = [link for link in dropped if link.uri not in known]
    if unlisted:
        lines = "\n".join(f"{link.name}: {link.uri}" for link in unlisted)
        content.append(TextContent(type="text", text=f"Resources:\n{lines}"))
    return ToolResult(
        content=content,
        structured_content=structured if allowed.structured_content else None,
        meta=result.meta,
        is_error=result.is_error,
    )


def shape_tool_listing(tools: Sequence[Tool], version: str) -> Sequence[Tool]:
    """``tools`` as ``version`` defines them: without ``outputSchema`` where results carry no structured content."""
    if features(version).structured_content:
        return tools
    return [tool.model_copy(update={"output_schema": None}) for tool in tools]


def request_version(ctx: Context | None) -> str | None:
    """The protocol version of the request being served, when there is one."""
    request = ctx.request_context if ctx is not None else None
    return request.protocol_version if request is not None else None


class ProtocolVersionMiddleware(Middleware):
    """Shape every tool result and tool listing by the request's protocol version (see :func:`shape_tool_result`,
    :func:`shape_tool_listing`)."""

    async def on_list_tools(
        self,
        context: MiddlewareContext[mt.ListToolsRequest],
        call_next: CallNext[mt.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        tools = await call_next(context)
        version = request_version(context.fastmcp_context)
        return tools if version is None else shape_tool_listing(tools, version)

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        result = await call_next(context)
        version = request_version(context.fastmcp_context)
        return result if version is None else shape_tool_result(result, version)


def unsupported_version_response(requested: str) -> JSONResponse:
    """400 with a JSON-RPC error naming the supported versions (``data`` as the SDK's -32022 carries it)."""
    error = InvalidRequestError(
        f"MCP-Protocol-Version '{echo(requested)}' is not supported; this server speaks "
        f"{', '.join(SUPPORTED_VERSIONS)}.",
        hint="Send one of those versions, or omit the header on a 2025-03-26 connection.",
    )
    data = {"supported": list(SUPPORTED_VERSIONS), "requested": echo(requested), "errorCode": error.code}
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": UNSUPPORTED_PROTOCOL_VERSION, "message": error.public_message, "data": data},
    }
    return JSONResponse(body, status_code=400)


class UnsupportedProtocolVersionGuard:
    """ASGI middleware: an HTTP request whose ``MCP-Protocol-Version`` is not in the table gets a 400.

    Without it the SDK hands any unknown version to its 2026-07-28 entry, whose refusal names only
    that version, or only a missing envelope field.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            requested = next((value for key, value in scope["headers"] if key == _HEADER), None)
            if requested is not None and requested.decode("latin-1") not in PROTOCOL_VERSIONS:
                await unsupported_version_response(requested.decode("latin-1"))(scope, receive, send)
                return
        await self.app(scope, receive, send)
