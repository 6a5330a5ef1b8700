"""The single registration boundary: exactly these tools (one row each, :mod:`~kgfegmcp.mcp.tools`), resources
and prompts are public, behind exactly this middleware, and every one of them behind the one error boundary."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware
from fastmcp.tools import FunctionTool
from mcp.types import ToolAnnotations

from kgfegmcp.mcp import resources
from kgfegmcp.mcp.boundary import ErrorBoundary
from kgfegmcp.mcp.curriculum_map import MAP_TOOL_META, MapListingMiddleware, map_resource
from kgfegmcp.mcp.listing import inline_refs, listed_input_schema
from kgfegmcp.mcp.probes import Readiness
from kgfegmcp.mcp.prompts import render_workflow, workflow_prompt
from kgfegmcp.mcp.protocol_versions import ProtocolVersionMiddleware
from kgfegmcp.mcp.request_log import RequestLogMiddleware
from kgfegmcp.mcp.tools import TOOL_BY_NAME, TOOLS, Tool
from kgfegmcp.prompts.workflows import WORKFLOWS
from kgfegmcp.resources.families import FAMILIES
from kgfegmcp.services.views import ResultModel

READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


@functools.cache
def output_schema(model: type[ResultModel]) -> dict[str, Any]:
    """``model``'s wire schema with every ``$ref`` inlined, as :class:`DereferenceRefsMiddleware` lists a schema.

    Inlined once per process here rather than on every ``tools/list`` (that took longer than the rest of
    the listing); every server of the process shares the result, so it is never mutated.
    """
    return inline_refs(model.wire_schema())


def full_input_schema(name: str) -> dict[str, Any]:
    """Tool ``name``'s input schema with every bound and rule, ``$ref`` inlined: what FastMCP derives from its
    request model, before :func:`~kgfegmcp.mcp.listing.listed_input_schema` compacts it for ``tools/list``."""
    return inline_refs(FunctionTool.from_function(TOOL_BY_NAME[name].handler, name=name).parameters)


#: The nine workflow prompts: every workflow spec, in the order the specs are declared (docs/prompts.md).
#: Deterministic instruction renderers, never generation.
PROMPTS: tuple[str, ...] = tuple(WORKFLOWS)


def middleware(boundary: ErrorBoundary) -> tuple[Middleware, ...]:
    """Every MCP middleware, outermost first: the request line sees the public error the boundary made."""
    return (
        RequestLogMiddleware(),
        ProtocolVersionMiddleware(),  # tool results shaped by the request's protocol version
        MapListingMiddleware(),  # the MCP Apps view left out for clients known to lack the extension
        boundary,
        # FastMCP's own (the server is built without it, so this list is all there is): inlines $ref in
        # listed schemas.
        DereferenceRefsMiddleware(),
    )


def register(server: FastMCP, readiness: Readiness, tools: Sequence[Tool[Any, Any]] = TOOLS) -> None:
    """Declare the public surface on ``server``; duplicates are rejected by the server itself.

    Over HTTP the surface includes the two probes (``/healthz``, ``/readyz``), outside authentication. The tools
    are every public tool's row (:data:`~kgfegmcp.mcp.tools.TOOLS`) unless a test declares rows of its own.

    Every tool declares its ``outputSchema``, generated from its result model (the row's,
    :func:`output_schema`); its results are objects, so FastMCP passes them through unwrapped. Its
    ``inputSchema`` is listed compact (:func:`~kgfegmcp.mcp.listing.listed_input_schema`).

    Every handler is guarded by the one :class:`ErrorBoundary` it is registered with, so whatever a
    tool, resource or prompt raises reaches the client only as that boundary's public error. Tool and
    resource handlers run on the event loop, not in FastMCP's worker threads
    (:meth:`ErrorBoundary.guard_on_loop`); prompts already render there.
    """
    if server.middleware:
        raise ValueError("register() declares every middleware: build the server with none (dereference_schemas=False)")
    boundary = ErrorBoundary({declared.name: declared.request for declared in tools})
    for layer in middleware(boundary):
        server.add_middleware(layer)
    for declared in tools:
        result: type[ResultModel] = declared.result
        # The handler has no docstring and the description is given, so FastMCP parses none: parsing would import
        # griffe (tens of milliseconds of every start) only to find parameter descriptions, kept in the request models.
        tool = FunctionTool.from_function(
            boundary.guard_on_loop(declared.name, declared.handler),
            name=declared.name,
            description=declared.description,
            annotations=READ_ONLY,
            output_schema=output_schema(result),
            meta=MAP_TOOL_META if declared.draws_map else None,
        )
        # Listed compact; the request model behind it still validates every bound and rule.
        server.add_tool(tool.model_copy(update={"parameters": listed_input_schema(tool.parameters)}))
    for family in FAMILIES:
        read = resources.handler(family)
        server.resource(
            family.template, name=family.name, description=family.description, mime_type="application/json"
        )(boundary.guard_on_loop(family.name, read))
    # The MCP Apps view: a shipped document, not curriculum evidence, so no family and no rights policy.
    server.add_resource(map_resource())
    for spec in WORKFLOWS.values():
        server.add_prompt(workflow_prompt(spec, boundary.guard(spec.name, render_workflow)))
    server.custom_route("/healthz", methods=["GET"], name="healthz")(readiness.healthz)
    server.custom_route("/readyz", methods=["GET"], name="readyz")(readiness.readyz)
