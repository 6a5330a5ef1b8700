"""One log line per MCP request: method, component, outcome, duration, and the incident id if any.

The middleware runs outermost, so it sees what the client gets: a result (``ok``) or the public
error a boundary raised, whose code is the outcome (``standard_not_found``, ``invalid_request``,
``internal_error`` …). A component is named as a client may not dictate the log: tool and prompt
names only clipped (:func:`~kgfegmcp.core.errors.echo`), a resource by its template, never by its URI.
The line is INFO whatever the outcome: a refusal is no fault of the server, and an unexpected
failure has its one ERROR record, with the traceback, from the boundary that caught it
(:func:`open_incident` ties the two together).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from pydantic import ValidationError as PydanticValidationError

from kgfegmcp.core.errors import ERROR_CLASSES, echo
from kgfegmcp.core.logging_setup import FIELDS_ATTRIBUTE
from mcp import MCPError

log = logging.getLogger("kgfegmcp.request")

OK = "ok"
INTERNAL = "internal_error"
#: Every outcome a public error can name: the domain codes and ``internal_error``.
_PUBLIC_CODES = frozenset({*ERROR_CLASSES, INTERNAL})
_CODED = re.compile(r"([a-z_]+): ")
#: JSON-RPC errors the SDK answers before any handler runs (no domain code): their outcome.
_PROTOCOL_OUTCOMES: Mapping[int, str] = {
    PARSE_ERROR: "parse_error",
    INVALID_REQUEST: "invalid_message",
    METHOD_NOT_FOUND: "method_not_found",
    INVALID_PARAMS: "invalid_params",
    INTERNAL_ERROR: INTERNAL,
}
#: What a resource read names when its URI is no supported address (the URI itself is never logged).
UNSUPPORTED_RESOURCE = "unsupported"
# A logged value that is not one plain token is quoted, so ``key=value`` pairs stay parseable.
_PLAIN = re.compile(r"[A-Za-z0-9_./:-]+")


@dataclass
class _Request:
    """What the boundaries tell the request line while the request runs (shared across worker threads)."""

    incident: str | None = None
    #: The family of the resource a read addressed, once the boundary parsed its URI.
    resource_family: str | None = None


_current: ContextVar[_Request | None] = ContextVar("kgfegmcp_request", default=None)
# Requests the server makes of itself (the warm-up) are not client requests: no request line.
_unlogged: ContextVar[bool] = ContextVar("kgfegmcp_unlogged_requests", default=False)


@contextlib.contextmanager
def unlogged_requests() -> Iterator[None]:
    """Within the block (and the tasks it starts), requests write no request line."""
    token = _unlogged.set(True)
    try:
        yield
    finally:
        _unlogged.reset(token)


def open_incident() -> str:
    """A fresh incident id for an unexpected failure; the current request's line will carry it."""
    incident = uuid.uuid4().hex[:12]
    request = _current.get()
    if request is not None:
        request.incident = incident
    return incident


def record_resource_family(family: str) -> None:
    """The family the current read addresses (the boundary parsed its URI); the request line names it."""
    request = _current.get()
    if request is not None:
        request.resource_family = family


def outcome_of(error: BaseException) -> str:
    """The code a failed request answered with: a domain code, ``internal_error``, or a protocol error."""
    if isinstance(error, ToolError):
        match = _CODED.match(str(error))
        return match.group(1) if match and match.group(1) in _PUBLIC_CODES else INTERNAL
    if isinstance(error, MCPError):
        data = error.data
        code = data.get("errorCode") if isinstance(data, Mapping) else None
        if isinstance(code, str) and code in _PUBLIC_CODES:
            return code
        return _PROTOCOL_OUTCOMES.get(error.code, "protocol_error")
    if isinstance(error, PydanticValidationError):
        return "invalid_params"
    if isinstance(error, asyncio.CancelledError):
        return "cancelled"
    return INTERNAL


def _param(message: object, key: str) -> object:
    """One request parameter, from a typed params model or the raw mapping of a request refused early."""
    return message.get(key) if isinstance(message, Mapping) else getattr(message, key, None)


def component_name(method: str | None, message: object, resource_family: str | None = None) -> str | None:
    """The tool or prompt (clipped), or the resource family, a request addresses; ``None`` for others.

    A read names the family the boundary parsed from its URI, or :data:`UNSUPPORTED_RESOURCE`.
    """
    if method in ("tools/call", "prompts/get"):
        name = _param(message, "name")
        return echo(name) if isinstance(name, str) else None
    if method == "resources/read":
        return resource_family or UNSUPPORTED_RESOURCE
    return None


def _token(value: str) -> str:
    return value if _PLAIN.fullmatch(value) else json.dumps(value, ensure_ascii=False)


def log_request(method: str | None, name: str | None, outcome: str, seconds: float, incident: str | None) -> None:
    """Write the request line: ``key=value`` text, the same keys as fields for the JSON format."""
    fields: dict[str, Any] = {"method": echo(method or "")}
    if name is not None:
        fields["name"] = name
    fields["outcome"] = outcome
    fields["duration_ms"] = round(seconds * 1000, 1)
    if incident is not None:
        fields["incident"] = incident
    text = " ".join(f"{key}={_token(str(value))}" for key, value in fields.items())
    log.info("%s", text, extra={FIELDS_ATTRIBUTE: fields})


class RequestLogMiddleware(Middleware):
    """Times every MCP request (FastMCP calls ``on_request`` once per request) and logs its line."""

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        request = _Request()
        token = _current.set(request)
        started = time.perf_counter()
        outcome = OK
        try:
            return await call_next(context)
        except BaseException as error:
            outcome = outcome_of(error)
            raise
        finally:
            _current.reset(token)
            elapsed = time.perf_counter() - started
            if not _unlogged.get():
                log_request(
                    context.method,
                    component_name(context.method, context.message, request.resource_family),
                    outcome,
                    elapsed,
                    request.incident,
                )
