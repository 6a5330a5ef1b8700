"""Every public tool, declared once: one row per tool, and one handler built from each row.

A row names the tool, its request and result models, the service call that answers it, how its answer reads as
text (a summary, or the canonical JSON), the links that follow the text, whether the text ends with the ready-made
next call, whether the curriculum map draws it, its description and an example request. Registration
(:mod:`~kgfegmcp.mcp.register`), the reference page (:mod:`~kgfegmcp.mcp.reference`), the lists written for the
MCPB manifest and the curriculum map (:mod:`~kgfegmcp.mcp.tool_lists`), the fuzzer, the benchmarks and the
tests' call tables read the rows, so a new tool is one row here beside its name, request model, service and text.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult
from mcp.types import ResourceLink

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.mcp import evidence_text, text
from kgfegmcp.mcp.boundary import app_state, canonical_result, continued, link_block, summary_result
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
from kgfegmcp.services.requests import (
    CompareFrameworkEvidenceRequest,
    FindLearningProgressionPathsRequest,
    GetCapabilitiesRequest,
    GetFrameworkRequest,
    GetFrameworkStatisticsRequest,
    GetLearningComponentRequest,
    GetLearningComponentsForStandardRequest,
    GetLearningProgressionRequest,
    GetStandardContextRequest,
    GetStandardProgressionsRequest,
    GetStandardRequest,
    GetStandardsForLearningComponentRequest,
    ListFrameworksRequest,
    ReadEvidenceRequest,
    RequestModel,
    SearchLearningComponentsRequest,
    SearchLearningProgressionsRequest,
    SearchStandardsRequest,
    TraverseLearningProgressionsRequest,
)
from kgfegmcp.services.standards import SearchStandardsResult, StandardContextResult, StandardDetail
from kgfegmcp.services.views import LinkedStandardRecord, ResultModel
from kgfegmcp.services.workflow_request import GetWorkflowInstructionsRequest

RequestT = TypeVar("RequestT", bound=RequestModel)
ResultT = TypeVar("ResultT", bound=ResultModel)


@dataclass(frozen=True, slots=True)
class Specimens:
    """The things of one catalog that example requests name.

    :data:`PLACEHOLDERS` names nothing in particular (every published schema accepts the requests it makes); a
    harness that sends the examples to a catalog gives that catalog's own. Each value is sent as it is given, so
    a harness that looks an id up only when it calls may give its own reference to it.
    """

    #: A framework id, and another one to compare it with.
    framework: str
    other_framework: str
    #: A standard selector (``frameworkId`` and ``nodeId`` or ``statementCode``): a standard of ``framework``
    #: with parents, learning components and stored progression links.
    standard: Mapping[str, Any]
    #: A selector of a standard that builds towards ``standard``, directly or not (a path's start).
    earlier_standard: Mapping[str, Any]
    #: The node id of a learning component of ``framework``.
    component: Any
    #: The id of a stored progression link of ``framework``.
    progression: Any
    #: Words ``framework``'s standards and learning components hold.
    query: str
    #: A ``kgfegmcp://`` address ``read_evidence`` reads.
    uri: Any


#: Values every published schema accepts, naming nothing that exists.
PLACEHOLDERS = Specimens(
    framework="some-framework",
    other_framework="other-framework",
    standard={"frameworkId": "some-framework", "nodeId": "n1"},
    earlier_standard={"frameworkId": "some-framework", "nodeId": "n2"},
    component="c1",
    progression="p1",
    query="fractions",
    uri="kgfegmcp://catalog",
)


@dataclass(frozen=True, slots=True)
class Tool(Generic[RequestT, ResultT]):
    """One public tool: everything the surface, its reference page, the lists written from it and the tests read.

    The request model is the handler's ``request`` parameter (FastMCP derives the input schema from it); the
    result model's ``to_wire()`` is the structured content and its wire schema the ``outputSchema``.
    """

    name: ToolName
    request: type[RequestT]
    result: type[ResultT]
    #: The service call that answers a validated request.
    answer: Callable[[AppState, RequestT], ResultT]
    #: What ``tools/list`` says of the tool, one paragraph; its first sentence is the MCPB manifest's.
    description: str
    #: A request for the tool, naming what ``Specimens`` name.
    example: Callable[[Specimens], dict[str, Any]]
    #: The answer's text summary; without one, its text is the canonical JSON of its structured content.
    summary: Callable[[ResultT], str] | None = None
    #: Resource links given after the text.
    links: Callable[[ResultT], Sequence[ResourceLink]] | None = None
    #: A paged answer whose text ends with the ready-made next call (``continued``) while more remains.
    continues: bool = False
    #: An answer that is a graph, which hosts rendering MCP Apps draw with the curriculum map
    #: (:mod:`~kgfegmcp.mcp.curriculum_map`): the listing links the view, for clients that declare the extension.
    draws_map: bool = False
    #: The handler registered for the tool, built from the fields above.
    handler: Callable[..., ToolResult] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "handler", _handler(self))

    def example_request(self, specimens: Specimens = PLACEHOLDERS) -> dict[str, Any]:
        """The example request over ``specimens``' things."""
        return self.example(specimens)


def _handler(tool: Tool[RequestT, ResultT]) -> Callable[..., ToolResult]:
    """The one handler every row gets: the service's answer as structured content, its text and its links.

    The handler itself has no docstring: the row's description is registered, so FastMCP has nothing to parse.
    """

    def handle(request: RequestT, ctx: Context) -> ToolResult:
        result = tool.answer(app_state(ctx), request)
        links = tool.links(result) if tool.links else ()
        if tool.summary is None:
            return canonical_result(result.to_wire(), [*links])
        return summary_result(result.to_wire(), tool.summary(result), [*links])

    # FastMCP reads the input schema from these annotations: the request model is the one argument a client sends.
    handle.__annotations__ = {"request": tool.request, "ctx": Context, "return": ToolResult}
    handle.__name__ = handle.__qualname__ = tool.name
    return continued(tool.name, handle) if tool.continues else handle


def _standard_link(standard: LinkedStandardRecord) -> list[ResourceLink]:
    return [link_block(standard.uri, f"standard {standard.statement_code or standard.node_id}")]


def _nothing(_: Specimens) -> dict[str, Any]:
    return {}


def _framework(s: Specimens) -> dict[str, Any]:
    return {"frameworkId": s.framework}


def _standard(s: Specimens) -> dict[str, Any]:
    return dict(s.standard)


def _component(s: Specimens) -> dict[str, Any]:
    return {"frameworkId": s.framework, "nodeId": s.component}


def _query(s: Specimens) -> dict[str, Any]:
    return {"query": s.query}


# Written without a declared type, so that each row's types are inferred from its own models and checked.
_ROWS = (
    Tool(
        ToolName.LIST_FRAMEWORKS,
        ListFrameworksRequest,
        ListFrameworksResult,
        lambda app, request: app.frameworks.list_frameworks(request),
        "Start here: the frameworks served (id, name, jurisdiction, subject, language, contents). Other tools take "
        "a frameworkId from it.",
        _nothing,
        summary=text.list_frameworks,
        continues=True,
    ),
    Tool(
        ToolName.GET_FRAMEWORK,
        GetFrameworkRequest,
        FrameworkDetail,
        lambda app, request: app.frameworks.get_framework(request),
        "One framework's source, licence, attribution, capabilities and disclosures, and the grade labels, "
        "statement types and subjects its filters accept.",
        _framework,
        summary=text.get_framework,
        links=lambda result: [link_block(result.framework.manifest_uri, "package manifest")],
    ),
    Tool(
        ToolName.GET_CAPABILITIES,
        GetCapabilitiesRequest,
        CapabilitiesResult,
        lambda app, request: app.frameworks.get_capabilities(request),
        "What this server can and cannot do (search modes, limits), and what one framework supports.",
        _nothing,
        summary=text.get_capabilities,
    ),
    Tool(
        ToolName.GET_FRAMEWORK_STATISTICS,
        GetFrameworkStatisticsRequest,
        StatisticsResult,
        lambda app, request: app.frameworks.get_framework_statistics(request),
        "Counts for one framework: standards by type and grade, learning components, progression links.",
        _framework,
        summary=text.get_framework_statistics,
    ),
    Tool(
        ToolName.SEARCH_STANDARDS,
        SearchStandardsRequest,
        SearchStandardsResult,
        lambda app, request: app.standards.search_standards(request),
        "Find standards by words or code in one or more frameworks: each hit's full statement, code, type, grades "
        "and nodeId. For a known code use get_standard.",
        _query,
        # No link per hit: each would repeat its package link + /standard/<nodeId> (see the package line).
        summary=text.search_standards,
        continues=True,
    ),
    Tool(
        ToolName.GET_STANDARD,
        GetStandardRequest,
        StandardDetail,
        lambda app, request: app.standards.get_standard(request),
        "One standard by statement code or nodeId: its full statement, type, grades and parents.",
        _standard,
        summary=text.get_standard,
        links=lambda result: _standard_link(result.standard),
    ),
    Tool(
        ToolName.GET_STANDARD_CONTEXT,
        GetStandardContextRequest,
        StandardContextResult,
        lambda app, request: app.standards.get_standard_context(request),
        "Where a standard sits: its parents, children, ancestors, descendants and paths to the root, each with its "
        "statement.",
        _standard,
        summary=text.get_standard_context,
        links=lambda result: _standard_link(result.standard),
        draws_map=True,
    ),
    Tool(
        ToolName.COMPARE_FRAMEWORK_EVIDENCE,
        CompareFrameworkEvidenceRequest,
        ComparisonResult,
        lambda app, request: app.comparison.compare_framework_evidence(request),
        "How 2-8 frameworks treat one topic: each searched on its own for candidate standards and their parent "
        "chains. It never aligns them; judging a match is yours.",
        lambda s: {"query": s.query, "frameworkIds": [s.framework, s.other_framework]},
        summary=evidence_text.compare_framework_evidence,
    ),
    Tool(
        ToolName.SEARCH_LEARNING_COMPONENTS,
        SearchLearningComponentsRequest,
        SearchLearningComponentsResult,
        lambda app, request: app.components.search_learning_components(request),
        "Find learning components (fine-grained skills) by words: each with its text, nodeId and the standards it "
        "supports.",
        _query,
        summary=evidence_text.search_learning_components,
        continues=True,
    ),
    Tool(
        ToolName.GET_LEARNING_COMPONENT,
        GetLearningComponentRequest,
        LearningComponentDetail,
        lambda app, request: app.components.get_learning_component(request),
        "One learning component by nodeId: its text and the standards it supports.",
        _component,
        summary=evidence_text.get_learning_component,
        links=lambda result: [link_block(result.component.uri, "learning component")],
    ),
    Tool(
        ToolName.GET_LEARNING_COMPONENTS_FOR_STANDARD,
        GetLearningComponentsForStandardRequest,
        ComponentsForStandardResult,
        lambda app, request: app.components.get_learning_components_for_standard(request),
        "The learning components that support one standard (steps to teach it), each with its confidence and "
        "evidence link.",
        _standard,
        summary=evidence_text.get_learning_components_for_standard,
        links=lambda result: _standard_link(result.standard),
        draws_map=True,
    ),
    Tool(
        ToolName.GET_STANDARDS_FOR_LEARNING_COMPONENT,
        GetStandardsForLearningComponentRequest,
        StandardsForComponentResult,
        lambda app, request: app.components.get_standards_for_learning_component(request),
        "The standards one learning component supports, each with statement, code, grades and type.",
        _component,
        summary=evidence_text.get_standards_for_learning_component,
    ),
    # The progression tools answer with their complete canonical JSON, so the page is in the text already.
    Tool(
        ToolName.GET_STANDARD_PROGRESSIONS,
        GetStandardProgressionsRequest,
        StandardProgressionsResult,
        lambda app, request: app.progressions.get_standard_progressions(request),
        "A standard's stored progression links (buildsTowards: what it builds on or leads to; relatesTo), with the "
        "linked standards.",
        _standard,
        draws_map=True,
    ),
    Tool(
        ToolName.SEARCH_LEARNING_PROGRESSIONS,
        SearchLearningProgressionsRequest,
        SearchProgressionsResult,
        lambda app, request: app.progressions.search_learning_progressions(request),
        "Find stored progression links in one framework by grade, subject, link type or words, with the linked "
        "standards.",
        lambda s: {"frameworkId": s.framework, "query": s.query},
    ),
    Tool(
        ToolName.GET_LEARNING_PROGRESSION,
        GetLearningProgressionRequest,
        LearningProgressionResult,
        lambda app, request: app.progressions.get_learning_progression(request),
        "One stored progression link by id, with both standards and its provenance link.",
        lambda s: {"frameworkId": s.framework, "progressionId": s.progression},
    ),
    Tool(
        ToolName.TRAVERSE_LEARNING_PROGRESSIONS,
        TraverseLearningProgressionsRequest,
        TraversalResult,
        lambda app, request: app.progressions.traverse_learning_progressions(request),
        "Follow stored progression links several steps from one standard: the standards reached, the links "
        "followed and what the bounds cut.",
        _standard,
        draws_map=True,
    ),
    Tool(
        ToolName.FIND_LEARNING_PROGRESSION_PATHS,
        FindLearningProgressionPathsRequest,
        PathsResult,
        lambda app, request: app.progressions.find_learning_progression_paths(request),
        "The shortest buildsTowards paths between two standards of one framework, with every standard on them: a "
        "teaching sequence.",
        lambda s: {"from": dict(s.earlier_standard), "to": dict(s.standard)},
        draws_map=True,
    ),
    Tool(
        ToolName.READ_EVIDENCE,
        ReadEvidenceRequest,
        ReadEvidenceResult,
        lambda app, request: app.evidence.read_evidence(request),
        "Read a kgfegmcp:// link from an answer (rights, manifest, provenance, source record), to check where a "
        "statement comes from.",
        lambda s: {"uri": s.uri},
    ),
    Tool(
        ToolName.GET_WORKFLOW_INSTRUCTIONS,
        GetWorkflowInstructionsRequest,
        WorkflowInstructionsResult,
        lambda app, request: app.prompts.workflow_instructions(request),
        "A workflow prompt's instructions (lesson plans, practice items, progression plans, reviews, comparisons), "
        "for hosts without MCP prompts.",
        lambda s: {"workflow": "practice_item_set", "frameworkId": s.framework, "topic": s.query},
        links=lambda result: [
            link_block(p.manifest_uri, f"package manifest {p.graph_package_id}") for p in result.packages
        ],
    ),
)
#: Every public tool, in the order clients list them (the order of :class:`ToolName`).
TOOLS: tuple[Tool[Any, Any], ...] = _ROWS
#: Tool name → its row.
TOOL_BY_NAME: dict[str, Tool[Any, Any]] = {tool.name: tool for tool in TOOLS}


def example_calls(
    specimens: Specimens, *, besides: Collection[str] = (), tools: Sequence[Tool[Any, Any]] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """``(tool, request)`` of each tool's example over ``specimens``, leaving out the tools named in ``besides``
    (those a harness calls in its own ways already): how a call table covers every tool, a new one too.

    The tools are every public tool's row (read when called) unless a caller gives rows of its own."""
    rows = TOOLS if tools is None else tools
    return [(tool.name, tool.example_request(specimens)) for tool in rows if tool.name not in besides]
