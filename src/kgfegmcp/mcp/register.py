"""The single registration boundary: exactly these tools, resources and prompts are public, behind
exactly this middleware, and every one of them behind the one error boundary."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware
from fastmcp.tools import FunctionTool
from mcp.types import ToolAnnotations

from kgfegmcp.mcp import (
    access_tools,
    comparison_tools,
    component_tools,
    progression_tools,
    resources,
    standards_tools,
    workflow_tools,
)
from kgfegmcp.mcp.boundary import ErrorBoundary
from kgfegmcp.mcp.listing import inline_refs, listed_input_schema
from kgfegmcp.mcp.probes import Readiness
from kgfegmcp.mcp.prompts import render_workflow, workflow_prompt
from kgfegmcp.mcp.protocol_versions import ProtocolVersionMiddleware
from kgfegmcp.mcp.request_log import RequestLogMiddleware
from kgfegmcp.prompts.workflows import WORKFLOWS
from kgfegmcp.resources.families import FAMILIES
from kgfegmcp.services.comparison import ComparisonResult
from kgfegmcp.services.components import (
    ComponentsForStandardResult,
    LearningComponentDetail,
    SearchLearningComponentsResult,
    StandardsForComponentResult,
)
from kgfegmcp.services.evidence import ReadEvidenceResult
from kgfegmcp.services.frameworks import CapabilitiesResult, FrameworkDetail, ListFrameworksResult, StatisticsResult
from kgfegmcp.services.progression_views import (
    LearningProgressionResult,
    PathsResult,
    SearchProgressionsResult,
    StandardProgressionsResult,
    TraversalResult,
)
from kgfegmcp.services.prompts import WorkflowInstructionsResult
from kgfegmcp.services.standards import SearchStandardsResult, StandardContextResult, StandardDetail
from kgfegmcp.services.views import ResultModel

READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)

#: Tool name → handler. The order here is the order clients list them in.
TOOLS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("list_frameworks", standards_tools.list_frameworks),
    ("get_framework", standards_tools.get_framework),
    ("get_capabilities", standards_tools.get_capabilities),
    ("get_framework_statistics", standards_tools.get_framework_statistics),
    ("search_standards", standards_tools.search_standards),
    ("get_standard", standards_tools.get_standard),
    ("get_standard_context", standards_tools.get_standard_context),
    ("compare_framework_evidence", comparison_tools.compare_framework_evidence),
    # Learning components (never mixed with standards).
    ("search_learning_components", component_tools.search_learning_components),
    ("get_learning_component", component_tools.get_learning_component),
    ("get_learning_components_for_standard", component_tools.get_learning_components_for_standard),
    ("get_standards_for_learning_component", component_tools.get_standards_for_learning_component),
    # The five progression tools (complete canonical JSON text; one package each).
    ("get_standard_progressions", progression_tools.get_standard_progressions),
    ("search_learning_progressions", progression_tools.search_learning_progressions),
    ("get_learning_progression", progression_tools.get_learning_progression),
    ("traverse_learning_progressions", progression_tools.traverse_learning_progressions),
    ("find_learning_progression_paths", progression_tools.find_learning_progression_paths),
    # Access (after the five progression tools, as docs/tools.md lists them): read_evidence, get_workflow_instructions.
    ("read_evidence", access_tools.read_evidence),
    # Keep last (docs/tools.md).
    ("get_workflow_instructions", workflow_tools.get_workflow_instructions),
)

#: Tool name → the model of its ``structuredContent``: its ``to_wire()`` is the structured content, its
#: :meth:`~kgfegmcp.services.views.ResultModel.wire_schema` the tool's ``outputSchema``. Every tool has one.
RESULTS: dict[str, type[ResultModel]] = {
    "list_frameworks": ListFrameworksResult,
    "get_framework": FrameworkDetail,
    "get_capabilities": CapabilitiesResult,
    "get_framework_statistics": StatisticsResult,
    "search_standards": SearchStandardsResult,
    "get_standard": StandardDetail,
    "get_standard_context": StandardContextResult,
    "compare_framework_evidence": ComparisonResult,
    "search_learning_components": SearchLearningComponentsResult,
    "get_learning_component": LearningComponentDetail,
    "get_learning_components_for_standard": ComponentsForStandardResult,
    "get_standards_for_learning_component": StandardsForComponentResult,
    "get_standard_progressions": StandardProgressionsResult,
    "search_learning_progressions": SearchProgressionsResult,
    "get_learning_progression": LearningProgressionResult,
    "traverse_learning_progressions": TraversalResult,
    "find_learning_progression_paths": PathsResult,
    "read_evidence": ReadEvidenceResult,
    "get_workflow_instructions": WorkflowInstructionsResult,
}


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
    return inline_refs(FunctionTool.from_function(dict(TOOLS)[name], name=name).parameters)


def tool_description(handler: Callable[..., Any]) -> str:
    """A handler's docstring as its tool's description: one paragraph, without the docstring's line breaks
    (a model reads it as prose; a break inside a sentence is noise)."""
    return " ".join((inspect.getdoc(handler) or "").split())


#: The nine workflow prompts: every workflow spec, in the order the specs are declared (docs/prompts.md).
#: Deterministic instruction renderers, never generation.
PROMPTS: tuple[str, ...] = tuple(WORKFLOWS)


def middleware(boundary: ErrorBoundary) -> tuple[Middleware, ...]:
    """Every MCP middleware, outermost first: the request line sees the public error the boundary made."""
    return (
        RequestLogMiddleware(),
        ProtocolVersionMiddleware(),  # tool results shaped by the request's protocol version
        boundary,
        # FastMCP's own (the server is built without it, so this list is all there is): inlines $ref in
        # listed schemas.
        DereferenceRefsMiddleware(),
    )


def register(server: FastMCP, readiness: Readiness) -> None:
    """Declare the public surface on ``server``; duplicates are rejected by the server itself.

    Over HTTP the surface includes the two probes (``/healthz``, ``/readyz``), outside authentication.

    Every tool declares its ``outputSchema``, generated from its result model (:data:`RESULTS`,
    :func:`output_schema`); its results are objects, so FastMCP passes them through unwrapped. Its
    ``inputSchema`` is listed compact (:func:`~kgfegmcp.mcp.listing.listed_input_schema`).

    Every handler is guarded by the one :class:`ErrorBoundary` it is registered with, so whatever a
    tool, resource or prompt raises reaches the client only as that boundary's public error. Tool and
    resource handlers run on the event loop, not in FastMCP's worker threads
    (:meth:`ErrorBoundary.guard_on_loop`); prompts already render there.
    """
    if server.middleware:
        raise ValueError("register() declares every middleware: build the server with none (dereference_schemas=False)")
    boundary = ErrorBoundary()
    for layer in middleware(boundary):
        server.add_middleware(layer)
    for name, handler in TOOLS:
        guarded = boundary.guard_on_loop(name, handler)
        # The description is given: without a docstring FastMCP skips parsing one, which would import griffe
        # (tens of milliseconds of every start) only to find parameter descriptions, kept in the request models.
        guarded.__doc__ = None
        tool = FunctionTool.from_function(
            guarded,
            name=name,
            description=tool_description(handler),
            annotations=READ_ONLY,
            output_schema=output_schema(RESULTS[name]),
        )
        # Listed compact; the request model behind it still validates every bound and rule.
        server.add_tool(tool.model_copy(update={"parameters": listed_input_schema(tool.parameters)}))
    for family in FAMILIES:
        read = resources.handler(family)
        server.resource(
            family.template, name=family.name, description=family.description, mime_type="application/json"
        )(boundary.guard_on_loop(family.name, read))
    for spec in WORKFLOWS.values():
        server.add_prompt(workflow_prompt(spec, boundary.guard(spec.name, render_workflow)))
    server.custom_route("/healthz", methods=["GET"], name="healthz")(readiness.healthz)
    server.custom_route("/readyz", methods=["GET"], name="readyz")(readiness.readyz)
