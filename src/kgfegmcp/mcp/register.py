"""The single registration boundary: exactly these tools, resources and prompts are public, behind
exactly this middleware, and every one of them behind the one error boundary."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware
from fastmcp.tools import FunctionTool
from fastmcp.tools.base import ToolResult
from mcp.types import ToolAnnotations

from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.mcp import (
    access_tools,
    comparison_tools,
    component_tools,
    progression_tools,
    resources,
    standards_tools,
    workflow_tools,
)
from kgfegmcp.mcp.boundary import ErrorBoundary, continued
from kgfegmcp.mcp.curriculum_map import MAP_TOOL_META, MapListingMiddleware, map_resource
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
from kgfegmcp.services.requests import RequestModel
from kgfegmcp.services.standards import SearchStandardsResult, StandardContextResult, StandardDetail
from kgfegmcp.services.views import ResultModel

READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


@dataclass(frozen=True, slots=True)
class Tool:
    """One public tool, declared once: everything the surface, its reference page and its tests read.

    The request model is the handler's ``request`` parameter (FastMCP derives the input schema from it);
    the result model's ``to_wire()`` is the structured content and its wire schema the ``outputSchema``.
    """

    name: ToolName
    handler: Callable[..., ToolResult]
    result: type[ResultModel]
    #: A paged answer whose text ends with the ready-made next call (``continued``) while more remains.
    continues: bool = False
    #: An answer that is a graph, which hosts rendering MCP Apps draw with the curriculum map
    #: (:mod:`~kgfegmcp.mcp.curriculum_map`): the listing links the view, for clients that declare the extension.
    draws_map: bool = False

    @property
    def request(self) -> type[RequestModel]:
        """The model the handler's ``request`` argument is validated against."""
        model = get_type_hints(self.handler)["request"]
        if not (isinstance(model, type) and issubclass(model, RequestModel)):
            raise TypeError(f"{self.name}: the handler's request is not a model")
        return model

    def public_handler(self) -> Callable[..., ToolResult]:
        """The handler as registered: with its continuation, when it has one."""
        return continued(self.name, self.handler) if self.continues else self.handler


#: Every public tool, in the order clients list them (the order of :class:`ToolName`).
TOOLS: tuple[Tool, ...] = (
    Tool(ToolName.LIST_FRAMEWORKS, standards_tools.list_frameworks, ListFrameworksResult, continues=True),
    Tool(ToolName.GET_FRAMEWORK, standards_tools.get_framework, FrameworkDetail),
    Tool(ToolName.GET_CAPABILITIES, standards_tools.get_capabilities, CapabilitiesResult),
    Tool(ToolName.GET_FRAMEWORK_STATISTICS, standards_tools.get_framework_statistics, StatisticsResult),
    Tool(ToolName.SEARCH_STANDARDS, standards_tools.search_standards, SearchStandardsResult, continues=True),
    Tool(ToolName.GET_STANDARD, standards_tools.get_standard, StandardDetail),
    Tool(ToolName.GET_STANDARD_CONTEXT, standards_tools.get_standard_context, StandardContextResult, draws_map=True),
    Tool(ToolName.COMPARE_FRAMEWORK_EVIDENCE, comparison_tools.compare_framework_evidence, ComparisonResult),
    Tool(
        ToolName.SEARCH_LEARNING_COMPONENTS,
        component_tools.search_learning_components,
        SearchLearningComponentsResult,
        continues=True,
    ),
    Tool(ToolName.GET_LEARNING_COMPONENT, component_tools.get_learning_component, LearningComponentDetail),
    Tool(
        ToolName.GET_LEARNING_COMPONENTS_FOR_STANDARD,
        component_tools.get_learning_components_for_standard,
        ComponentsForStandardResult,
        draws_map=True,
    ),
    Tool(
        ToolName.GET_STANDARDS_FOR_LEARNING_COMPONENT,
        component_tools.get_standards_for_learning_component,
        StandardsForComponentResult,
    ),
    # The progression tools answer with their complete canonical JSON, so the page is in the text already.
    Tool(
        ToolName.GET_STANDARD_PROGRESSIONS,
        progression_tools.get_standard_progressions,
        StandardProgressionsResult,
        draws_map=True,
    ),
    Tool(
        ToolName.SEARCH_LEARNING_PROGRESSIONS,
        progression_tools.search_learning_progressions,
        SearchProgressionsResult,
    ),
    Tool(ToolName.GET_LEARNING_PROGRESSION, progression_tools.get_learning_progression, LearningProgressionResult),
    Tool(
        ToolName.TRAVERSE_LEARNING_PROGRESSIONS,
        progression_tools.traverse_learning_progressions,
        TraversalResult,
        draws_map=True,
    ),
    Tool(
        ToolName.FIND_LEARNING_PROGRESSION_PATHS,
        progression_tools.find_learning_progression_paths,
        PathsResult,
        draws_map=True,
    ),
    Tool(ToolName.READ_EVIDENCE, access_tools.read_evidence, ReadEvidenceResult),
    Tool(ToolName.GET_WORKFLOW_INSTRUCTIONS, workflow_tools.get_workflow_instructions, WorkflowInstructionsResult),
)
#: Tool name → its declaration.
TOOL_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


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
        MapListingMiddleware(),  # the MCP Apps view left out for clients known to lack the extension
        boundary,
        # FastMCP's own (the server is built without it, so this list is all there is): inlines $ref in
        # listed schemas.
        DereferenceRefsMiddleware(),
    )


def register(server: FastMCP, readiness: Readiness) -> None:
    """Declare the public surface on ``server``; duplicates are rejected by the server itself.

    Over HTTP the surface includes the two probes (``/healthz``, ``/readyz``), outside authentication.

    Every tool declares its ``outputSchema``, generated from its result model (:data:`TOOLS`,
    :func:`output_schema`); its results are objects, so FastMCP passes them through unwrapped. Its
    ``inputSchema`` is listed compact (:func:`~kgfegmcp.mcp.listing.listed_input_schema`).

    Every handler is guarded by the one :class:`ErrorBoundary` it is registered with, so whatever a
    tool, resource or prompt raises reaches the client only as that boundary's public error. Tool and
    resource handlers run on the event loop, not in FastMCP's worker threads
    (:meth:`ErrorBoundary.guard_on_loop`); prompts already render there.
    """
    if server.middleware:
        raise ValueError("register() declares every middleware: build the server with none (dereference_schemas=False)")
    boundary = ErrorBoundary({declared.name: declared.request for declared in TOOLS})
    for layer in middleware(boundary):
        server.add_middleware(layer)
    for declared in TOOLS:
        guarded = boundary.guard_on_loop(declared.name, declared.public_handler())
        # The description is given: without a docstring FastMCP skips parsing one, which would import griffe
        # (tens of milliseconds of every start) only to find parameter descriptions, kept in the request models.
        guarded.__doc__ = None
        tool = FunctionTool.from_function(
            guarded,
            name=declared.name,
            description=tool_description(declared.handler),
            annotations=READ_ONLY,
            output_schema=output_schema(declared.result),
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
