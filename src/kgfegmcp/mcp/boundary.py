"""The MCP error boundary and tool-result assembly.

Domain errors leave as ``<error_code>: <message>``; anything unexpected is logged with an incident
id and replaced by the fixed public message, so no path, trace or detail reaches a client.
"""

from __future__ import annotations

import functools
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import mcp.types as mt
from fastmcp.exceptions import ResourceError, ToolError, ValidationError
from fastmcp.server.context import Context
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ContentBlock, ResourceLink, TextContent
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from kgfegmcp.bootstrap import AppState
from kgfegmcp.errors import INTERNAL_ERROR_MESSAGES, InvalidCursorError, InvalidRequestError, KgfegmcpError
from kgfegmcp.models import canonical_json
from mcp import MCPError

log = logging.getLogger("kgfegmcp.mcp")

P = ParamSpec("P")
R = TypeVar("R")


def app_state(ctx: Context) -> AppState:
    """The lifespan's immutable state."""
    state = ctx.lifespan_context.get("state")
    if not isinstance(state, AppState):
        raise RuntimeError("the server lifespan has not built its state")
    return state


def tool_boundary(handler: Callable[P, R]) -> Callable[P, R]:
    """Translate domain errors; mask and log everything unexpected."""

    @functools.wraps(handler)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return handler(*args, **kwargs)
        except KgfegmcpError as exc:
            if exc.details:
                log.info("%s: %s", exc.code, exc.details)
            raise ToolError(exc.public_message) from None
        except ToolError:
            raise
        except Exception:
            incident = uuid.uuid4().hex[:12]
            log.exception("incident %s in tool %s", incident, handler.__name__)
            raise ToolError(INTERNAL_ERROR_MESSAGES["tool"]) from None

    return wrapper


def resource_boundary(handler: Callable[P, R]) -> Callable[P, R]:
    """The resource twin of :func:`tool_boundary`.

    Domain errors become ``<code>: <message>`` (JSON-RPC invalid params, the code in ``data``); anything
    unexpected is logged once with an incident id and becomes the fixed resource message. The public
    ``MCPError`` travels as the ``__cause__`` of a quiet ``ResourceError`` so FastMCP does not log a
    traceback for an ordinary refusal; ``public_resource_error`` unwraps it at the read boundary.
    """

    @functools.wraps(handler)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return handler(*args, **kwargs)
        except KgfegmcpError as exc:
            if exc.details:
                log.info("%s: %s", exc.code, exc.details)
            public = MCPError(code=INVALID_PARAMS, message=exc.public_message, data={"errorCode": exc.code})
            raise ResourceError(exc.public_message, log_level=logging.DEBUG) from public
        except Exception:
            incident = uuid.uuid4().hex[:12]
            log.exception("incident %s in resource %s", incident, handler.__name__)
            message = INTERNAL_ERROR_MESSAGES["resource"]
            public = MCPError(code=INTERNAL_ERROR, message=message, data={"errorCode": "internal_error"})
            raise ResourceError(message, log_level=logging.DEBUG) from public

    return wrapper


def public_resource_error(error: Exception) -> Exception:
    """The public ``MCPError`` a :func:`resource_boundary` refusal carries, else ``error`` unchanged."""

    cause = error.__cause__
    return cause if isinstance(cause, MCPError) else error


def text_block(text: str) -> TextContent:
    """One text content block."""
    return TextContent(type="text", text=text)


def link_block(uri: str, name: str, description: str | None = None) -> ResourceLink:
    """A resource_link content block citing evidence."""
    return ResourceLink(type="resource_link", uri=uri, name=name, description=description)


def continuation_block(tool: str, request: BaseModel, next_cursor: str | None) -> TextContent | None:
    """The model-visible ``nextRequest`` block: the request with defaults omitted, cursor replaced."""
    if next_cursor is None:
        return None
    wire = request.model_dump(mode="json", by_alias=True, exclude_defaults=True, exclude={"cursor"})
    wire["cursor"] = next_cursor
    body = {"continuationTool": tool, "nextRequest": {"request": wire}}
    return text_block("Continue with:\n" + json.dumps(body, ensure_ascii=False, sort_keys=True))


def summary_result(
    structured: dict[str, Any], summary: str, extra: list[ContentBlock | None] | None = None
) -> ToolResult:
    """Structured content plus a deterministic text summary (and optional extra blocks)."""
    blocks: list[ContentBlock] = [text_block(summary)]
    blocks.extend(block for block in (extra or []) if block is not None)
    return ToolResult(content=blocks, structured_content=structured)


def canonical_result(structured: dict[str, Any], extra: list[ContentBlock] | None = None) -> ToolResult:
    """The complete canonical JSON as text, parsing to exactly the structured content."""
    return ToolResult(content=[text_block(canonical_json(structured)), *(extra or [])], structured_content=structured)


def _validation_summary(error: PydanticValidationError) -> str:
    """Field paths and reasons only: the rejected values are not echoed back."""
    problems = []
    for item in error.errors()[:10]:
        where = ".".join(str(part) for part in item["loc"]) or "request"
        problems.append(f"{where}: {item['msg']}")
    return "; ".join(problems)


def _only_cursor_rejected(error: PydanticValidationError) -> bool:
    """Whether every problem is the top-level ``request.cursor`` field."""
    return all(tuple(item["loc"]) == ("request", "cursor") for item in error.errors())


class RequestValidationMiddleware(Middleware):
    """Rejected arguments become ``invalid_request: <field>: <reason>``; nothing is coerced."""

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        try:
            return await call_next(context)
        except ValidationError as exc:
            cause = exc.__cause__
            if isinstance(cause, PydanticValidationError) and _only_cursor_rejected(cause):
                # A malformed cursor (padded, over-long, not base64url) is invalid_cursor, as the spec says.
                malformed = InvalidCursorError("The cursor is not unpadded base64url text of 1 to 4096 characters.")
                raise ToolError(malformed.public_message) from None
            detail = _validation_summary(cause) if isinstance(cause, PydanticValidationError) else "arguments rejected"
            error = InvalidRequestError(
                f"{detail}.", hint="Send exactly the published schema: camelCase fields, no extras, JSON types."
            )
            raise ToolError(error.public_message) from None
