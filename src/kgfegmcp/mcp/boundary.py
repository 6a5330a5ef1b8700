"""The MCP error boundary and tool-result assembly.

Domain errors leave as ``<error_code>: <message>``; anything unexpected is logged with an incident
id and replaced by the fixed public message, so no path, trace or detail reaches a client. Names a
client sent (fields, tools) are repeated only clipped (:func:`kgfegmcp.errors.echo`), so every
error text stays bounded whatever the request held.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import mcp.types as mt
from fastmcp.exceptions import NotFoundError, ResourceError, ToolError, ValidationError
from fastmcp.server.context import Context
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ContentBlock, ResourceLink, TextContent
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from kgfegmcp.bootstrap import AppState
from kgfegmcp.errors import (
    INTERNAL_ERROR_MESSAGES,
    InvalidCursorError,
    InvalidRequestError,
    KgfegmcpError,
    clip,
    echo,
    problem_list,
)
from kgfegmcp.mcp.request_log import open_incident
from kgfegmcp.models import canonical_json
from mcp import MCPError

log = logging.getLogger("kgfegmcp.mcp")

P = ParamSpec("P")
R = TypeVar("R")

#: The ``log_level`` of a FastMCP error we have already logged (or that is an ordinary refusal).
#: FastMCP logs tool failures at that level, resource and prompt failures *with a traceback*; ``logging.NOTSET``
#: is below every threshold (``Logger.isEnabledFor`` never admits it), so that record is never
#: emitted and our own one-line record is the only one.
UNLOGGED = logging.NOTSET
# A validation problem's location (``request.a.b``, each part clipped) and reason, at most.
_LOCATION_CHARS = 256
_REASON_CHARS = 160
# Longest part of a refusal's public message repeated in its log line.
_LOGGED_MESSAGE_CHARS = 300


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
            raise ToolError(exc.public_message, log_level=UNLOGGED) from None
        except ToolError:
            raise
        except Exception:
            incident = open_incident()
            log.exception("incident %s in tool %s", incident, handler.__name__)
            raise ToolError(INTERNAL_ERROR_MESSAGES["tool"], log_level=UNLOGGED) from None

    return wrapper


def log_refusal(boundary: str, name: str, exc: KgfegmcpError) -> None:
    """One bounded line per expected refusal, never a traceback: which component refused, and why."""
    details = f" {exc.details}" if exc.details else ""
    log.info("%s %s refused: %s%s", boundary, name, echo(exc.public_message, _LOGGED_MESSAGE_CHARS), details)


def public_error(exc: KgfegmcpError) -> MCPError:
    """A domain refusal on the wire: JSON-RPC invalid params, ``<code>: <message>``, the code in ``data``."""
    return MCPError(code=INVALID_PARAMS, message=exc.public_message, data={"errorCode": exc.code})


def internal_error(boundary: str) -> MCPError:
    """The fixed public error of an unexpected failure at ``boundary`` (``resource`` or ``prompt``)."""
    return MCPError(
        code=INTERNAL_ERROR, message=INTERNAL_ERROR_MESSAGES[boundary], data={"errorCode": "internal_error"}
    )


def resource_boundary(handler: Callable[P, R]) -> Callable[P, R]:
    """The resource twin of :func:`tool_boundary`.

    Domain errors become :func:`public_error`; anything unexpected is logged once with an incident id
    and becomes the fixed resource message. The public ``MCPError`` travels as the ``__cause__`` of an
    :data:`UNLOGGED` ``ResourceError`` so FastMCP logs no traceback for it; ``public_cause`` unwraps
    it at the read boundary.
    """

    @functools.wraps(handler)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return handler(*args, **kwargs)
        except KgfegmcpError as exc:
            log_refusal("resource", handler.__name__, exc)
            raise ResourceError(exc.public_message, log_level=UNLOGGED) from public_error(exc)
        except Exception:
            incident = open_incident()
            log.exception("incident %s in resource %s", incident, handler.__name__)
            raise ResourceError(INTERNAL_ERROR_MESSAGES["resource"], log_level=UNLOGGED) from internal_error("resource")

    return wrapper


def public_cause(error: Exception) -> Exception:
    """The public ``MCPError`` a boundary refusal carries as its cause, else ``error`` unchanged."""

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
    return text_block("Continue with:\n" + json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


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
    """Field paths and reasons only: the rejected values are not echoed back, the names only clipped."""
    problems = []
    for item in error.errors(include_url=False, include_context=False, include_input=False):
        where = clip(".".join(echo(part) for part in item["loc"]) or "request", _LOCATION_CHARS)
        problems.append(f"{where}: {echo(item['msg'], limit=_REASON_CHARS)}")
    return problem_list(problems)


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
        except NotFoundError:
            unknown = InvalidRequestError(
                f"Unknown tool '{echo(context.message.name)}'.",
                hint="Call tools/list to see the tools this server offers.",
            )
            raise ToolError(unknown.public_message) from None
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
