"""The MCP error boundary and tool-result assembly.

One boundary judges every failure of every tool, resource and prompt: :class:`ErrorBoundary`,
registered once (``register.py``). Domain errors leave as ``<error_code>: <message>``; anything
unexpected is logged with an incident id and replaced by the fixed public message, so no path, trace
or detail reaches a client. Names a client sent (fields, tools) are repeated only clipped
(:func:`kgfegmcp.core.errors.echo`), so every error text stays bounded whatever the request held.
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
from collections.abc import Callable, Coroutine, Mapping
from contextvars import ContextVar
from typing import Any, Literal, ParamSpec, TypeVar, get_args

import mcp.types as mt
from fastmcp.exceptions import FastMCPError, NotFoundError, ToolError, ValidationError
from fastmcp.prompts.base import PromptResult
from fastmcp.resources import ResourceResult
from fastmcp.server.context import Context
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ContentBlock, ResourceLink, TextContent
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.errors import (
    INTERNAL_ERROR_MESSAGES,
    InvalidCursorError,
    InvalidRequestError,
    KgfegmcpError,
    ResourceNotFoundError,
    clip,
    echo,
    problem_list,
)
from kgfegmcp.core.rendering import canonical_text
from kgfegmcp.mcp.curriculum_map import MAP_NAME, MAP_URI
from kgfegmcp.mcp.request_log import open_incident, record_resource_family
from kgfegmcp.resources.addresses import ResourceAddress, supported_address
from mcp import MCPError

log = logging.getLogger("kgfegmcp.mcp")

P = ParamSpec("P")
R = TypeVar("R")

#: What kind of component a request addresses (the keys of ``INTERNAL_ERROR_MESSAGES``).
Boundary = Literal["tool", "resource", "prompt"]

#: The ``log_level`` of a FastMCP error that FastMCP must not log. FastMCP logs what a handler raises
#: before any middleware sees it: tool failures at the error's level, resource and prompt failures
#: *with a traceback* that repeats the client's URI or argument names. ``logging.NOTSET`` is below every
#: threshold (``Logger.isEnabledFor`` never admits it), so that record is never emitted and the
#: boundary's own one-line record is the only one.
UNLOGGED = logging.NOTSET
# A validation problem's location (``request.a.b``, each part clipped) and reason, at most. A reason is
# the server's own text (values are never echoed); the longest, a workflow's field list, fits whole.
_LOCATION_CHARS = 256
_REASON_CHARS = 320
# Longest part of a refusal's public message repeated in its log line.
_LOGGED_MESSAGE_CHARS = 300
_UNSUPPORTED_ADDRESS_HINT = "Use the resource links returned by the tools, or list the resource templates."


def app_state(ctx: Context) -> AppState:
    """The lifespan's immutable state."""
    state = ctx.lifespan_context.get("state")
    if not isinstance(state, AppState):
        raise RuntimeError("the server lifespan has not built its state")
    return state


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


class _Unjudged(FastMCPError):
    """A handler's failure on its way through FastMCP to :class:`ErrorBoundary`: the failure is its cause.

    :data:`UNLOGGED`, so FastMCP passes it on without a record of its own. Its text is the fixed public
    message, so even a path that bypassed the boundary would show a client nothing of the failure.
    """

    def __init__(self, component: str) -> None:
        super().__init__(INTERNAL_ERROR_MESSAGES["tool"], log_level=UNLOGGED)
        self.component = component


#: The address of the resource read in progress, parsed once by :meth:`ErrorBoundary.on_read_resource`.
_read_address: ContextVar[ResourceAddress | None] = ContextVar("kgfegmcp_read_address", default=None)


def read_address() -> ResourceAddress | None:
    """The parsed address of the read in progress; ``None`` outside one."""
    return _read_address.get()


def _require_supported(uri: str) -> ResourceAddress:
    """Any exact supported address passes; everything else is ``resource_not_found`` (the URI never repeated)."""
    return supported_address(uri, _UNSUPPORTED_ADDRESS_HINT)


def _validation_summary(error: PydanticValidationError, request: type[BaseModel] | None = None) -> str:
    """Field paths and reasons only: the rejected values are not echoed back, the names only clipped.

    A reason reads as the rule's own sentence (no ``Value error, ``, no closing full stop, which the message
    adds); an undeclared field names the accepted field nearest it, or those accepted there (``request``, the
    tool's request model, says which).
    """
    problems = []
    for item in error.errors(include_url=False, include_context=False, include_input=False):
        where = clip(".".join(echo(part) for part in item["loc"]) or "request", _LOCATION_CHARS)
        if item["type"] == "extra_forbidden":
            reason = _unknown_field(tuple(item["loc"]), request)
        else:
            reason = str(item["msg"]).removeprefix("Value error, ").rstrip(".")
        problems.append(f"{where}: {echo(reason, limit=_REASON_CHARS)}")
    return problem_list(problems)


def _unknown_field(loc: tuple[int | str, ...], request: type[BaseModel] | None) -> str:
    """What to say of the undeclared field at ``loc``: the accepted field meant, or the accepted ones."""
    accepted = ["request"] if len(loc) <= 1 else _fields_at(request, loc[1:-1])
    if not accepted:
        return "not a field of this request"
    meant = _nearest(str(loc[-1]), accepted)
    if meant:
        return f"not a field of this request; send it as {meant}"
    return f"not a field of this request; accepted: {', '.join(accepted)}"


def _fields_at(model: Any, path: tuple[int | str, ...]) -> list[str]:
    """The accepted (camelCase) field names of the object at ``path`` inside ``model``; none if not found."""
    for part in path:
        model = _object_in(model, part)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return []
    return [info.alias or name for name, info in model.model_fields.items()]


def _object_in(annotation: Any, part: int | str) -> Any:
    """The model the value at ``part`` of a value of ``annotation`` is validated against, if one is."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, info in annotation.model_fields.items():
            if part in (info.alias, name):
                return _model_of(info.annotation)
        return None
    return _model_of(annotation)  # a list item or mapping value: its element's model


def _model_of(annotation: Any) -> Any:
    """The one model inside ``annotation`` (through optionals, lists, mappings and ``Annotated``), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    models = {m for m in map(_model_of, get_args(annotation)) if m is not None}
    return models.pop() if len(models) == 1 else None


def _nearest(sent: str, accepted: list[str]) -> str | None:
    """The accepted field ``sent`` most likely means: the same name in another case or spelling, one that
    contains it or it contains, else the closest spelling; ``None`` when none is near."""
    if len(sent) > _LOCATION_CHARS:
        return None

    def folded(name: str) -> str:
        return name.replace("_", "").replace("-", "").lower()

    key = folded(sent)
    if not key:
        return None
    by_folded = {folded(name): name for name in accepted}
    if key in by_folded:
        return by_folded[key]
    containing = [name for fold, name in by_folded.items() if key in fold or fold in key]
    if len(containing) == 1:
        return containing[0]
    pool = [folded(name) for name in containing] or list(by_folded)
    close = difflib.get_close_matches(key, pool, n=1, cutoff=0.0 if containing else 0.6)
    return by_folded[close[0]] if close else None


def _only_cursor_rejected(error: PydanticValidationError) -> bool:
    """Whether every problem is the top-level ``request.cursor`` field."""
    return all(tuple(item["loc"]) == ("request", "cursor") for item in error.errors())


def _rejected_arguments(error: ValidationError, request: type[BaseModel] | None = None) -> ToolError:
    """FastMCP's refusal of a tool's arguments as ``invalid_request: <field>: <reason>`` (or ``invalid_cursor``)."""
    cause = error.__cause__
    if isinstance(cause, PydanticValidationError) and _only_cursor_rejected(cause):
        # A malformed cursor (padded, over-long, not base64url) is invalid_cursor, as the spec says.
        malformed = InvalidCursorError("The cursor is not unpadded base64url text of 1 to 4096 characters.")
        return ToolError(malformed.public_message)
    detail = _validation_summary(cause, request) if isinstance(cause, PydanticValidationError) else "arguments rejected"
    rejected = InvalidRequestError(
        f"{detail}.", hint="Send exactly the published schema: camelCase fields, no extras, JSON types."
    )
    return ToolError(rejected.public_message)


class ErrorBoundary(Middleware):
    """The one error boundary of every tool, resource and prompt, registered once (``register.py``).

    It has two halves, because FastMCP logs what a handler raises (with a traceback, and for a resource
    with the URI) before any middleware sees it. :meth:`guard` wraps each handler where it is registered
    and hands whatever the handler raises through FastMCP unlogged, as the cause of an
    :class:`_Unjudged` error. The hooks judge it where the request returns, one rule for every
    component: a domain error (:class:`~kgfegmcp.core.errors.KgfegmcpError`) is the public refusal, anything
    else is logged once with an incident id and masked with the fixed message of its kind. They also
    give FastMCP's own refusals (an unknown name, rejected tool arguments, a URI no template matches)
    their coded public form, and refuse a URI that is not one exact supported address before any
    template is matched, so no message repeats the URI. Nothing is coerced.

    Handlers therefore raise domain errors freely and never see the wire. On the wire a tool failure is a
    ``ToolError`` (an ``isError`` result); a resource or prompt failure is an ``MCPError``: JSON-RPC
    invalid params with the code in ``data``, or internal error.
    """

    def __init__(self, requests: Mapping[str, type[BaseModel]] | None = None) -> None:
        """``requests``: each tool's request model, so a refusal of an undeclared field names the accepted one."""
        super().__init__()
        self._requests: Mapping[str, type[BaseModel]] = requests or {}

    @staticmethod
    def guard(component: str, handler: Callable[P, R]) -> Callable[P, R]:
        """``handler`` (the one behind ``component``) with every failure carried to the hooks unlogged."""

        @functools.wraps(handler)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:
                raise _Unjudged(component) from exc

        return guarded

    @staticmethod
    def guard_on_loop(component: str, handler: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
        """:meth:`guard`, as a coroutine function: FastMCP then runs ``handler`` on the event loop.

        FastMCP hands a plain function to a worker thread per call. Ours are CPU-bound Python under the
        GIL, bounded to milliseconds, so a thread buys no parallelism; it costs a thread hand-off per
        call, and every worker thread allocates from a malloc arena of its own, whose freed pages glibc
        keeps: resident memory then grew with every batch of calls while the Python heap stayed flat
        (``docs/performance.md``, "HTTP load through a balancer"). Same signature, same answers.
        """
        guarded = ErrorBoundary.guard(component, handler)

        @functools.wraps(handler)
        async def on_loop(*args: P.args, **kwargs: P.kwargs) -> R:
            return guarded(*args, **kwargs)

        return on_loop

    @staticmethod
    def judged(boundary: Boundary, component: str, failure: BaseException | None) -> Exception:
        """The public error of ``component``'s ``failure``: its refusal, or an incident masked."""
        if isinstance(failure, KgfegmcpError):
            if boundary == "tool":
                # A tool refusal's log line is its details alone (the request line names its outcome).
                if failure.details:
                    log.info("%s: %s", failure.code, failure.details)
                return ToolError(failure.public_message, log_level=UNLOGGED)
            log_refusal(boundary, component, failure)
            return public_error(failure)
        incident = open_incident()
        log.error("incident %s in %s %s", incident, boundary, component, exc_info=failure)
        if boundary == "tool":
            return ToolError(INTERNAL_ERROR_MESSAGES["tool"], log_level=UNLOGGED)
        return internal_error(boundary)

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        try:
            return await call_next(context)
        except _Unjudged as unjudged:
            raise self.judged("tool", unjudged.component, unjudged.__cause__) from None
        except NotFoundError:
            # MCP: an unknown tool is a protocol error (-32602), not a tool's result.
            unknown = InvalidRequestError(
                f"Unknown tool '{echo(context.message.name)}'.",
                hint="Call tools/list to see the tools this server offers.",
            )
            raise public_error(unknown) from None
        except ValidationError as exc:
            raise _rejected_arguments(exc, self._requests.get(context.message.name)) from None

    async def on_read_resource(
        self,
        context: MiddlewareContext[mt.ReadResourceRequestParams],
        call_next: CallNext[mt.ReadResourceRequestParams, ResourceResult],
    ) -> ResourceResult:
        token = None
        try:
            if str(context.message.uri) == MAP_URI:  # the MCP Apps view: a shipped document, not an evidence address
                record_resource_family(MAP_NAME)
                return await call_next(context)
            # Judged like a handler, under its own name (which a refusal's log line has always named).
            address = self.guard(_require_supported.__name__, _require_supported)(str(context.message.uri))
            record_resource_family(address.family.value)
            token = _read_address.set(address)
            return await call_next(context)
        except _Unjudged as unjudged:
            raise self.judged("resource", unjudged.component, unjudged.__cause__) from None
        except NotFoundError:  # FastMCP's own refusal would repeat the URI whole, uncoded
            missing = ResourceNotFoundError(
                "The URI names no resource this server serves.", hint=_UNSUPPORTED_ADDRESS_HINT
            )
            raise public_error(missing) from None
        finally:
            if token is not None:
                _read_address.reset(token)

    async def on_get_prompt(
        self,
        context: MiddlewareContext[mt.GetPromptRequestParams],
        call_next: CallNext[mt.GetPromptRequestParams, PromptResult],
    ) -> PromptResult:
        try:
            return await call_next(context)
        except _Unjudged as unjudged:
            raise self.judged("prompt", unjudged.component, unjudged.__cause__) from None
        except NotFoundError:
            unknown = InvalidRequestError(
                f"Unknown prompt '{echo(context.message.name)}'.",
                hint="Call prompts/list to see the prompts this server offers.",
            )
            raise public_error(unknown) from None


def text_block(text: str) -> TextContent:
    """One text content block."""
    return TextContent(type="text", text=text)


def link_block(uri: str, name: str, description: str | None = None) -> ResourceLink:
    """A resource_link content block citing evidence."""
    return ResourceLink(type="resource_link", uri=uri, name=name, description=description)


def continued(tool: str, handler: Callable[[Any, Context], ToolResult]) -> Callable[[Any, Context], ToolResult]:
    """``handler``, its answer followed by the model-visible ``nextRequest`` block whenever its page has a
    next cursor: the request with defaults omitted and the cursor replaced, ready to send as it is."""

    @functools.wraps(handler)
    def with_next_request(request: BaseModel, ctx: Context) -> ToolResult:
        result = handler(request, ctx)
        next_cursor = (result.structured_content or {}).get("page", {}).get("nextCursor")
        if next_cursor is None:
            return result
        wire = request.model_dump(mode="json", by_alias=True, exclude_defaults=True, exclude={"cursor"})
        wire["cursor"] = next_cursor
        body = {"continuationTool": tool, "nextRequest": {"request": wire}}
        block = text_block(
            "Continue with:\n" + json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        )
        return ToolResult(content=[*result.content, block], structured_content=result.structured_content)

    return with_next_request


def summary_result(
    structured: dict[str, Any], summary: str, extra: list[ContentBlock | None] | None = None
) -> ToolResult:
    """Structured content plus a deterministic text summary (and optional extra blocks)."""
    blocks: list[ContentBlock] = [text_block(summary)]
    blocks.extend(block for block in (extra or []) if block is not None)
    return ToolResult(content=blocks, structured_content=structured)


def canonical_result(structured: dict[str, Any], extra: list[ContentBlock] | None = None) -> ToolResult:
    """The complete canonical JSON as text, parsing to exactly the structured content."""
    return ToolResult(content=[text_block(canonical_text(structured)), *(extra or [])], structured_content=structured)
