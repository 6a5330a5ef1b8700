"""Learning-component tool handlers: request in, service call, deterministic text summary out."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp import evidence_text
from kgfegmcp.mcp.boundary import app_state, continuation_block, link_block, summary_result
from kgfegmcp.services.requests import (
    GetLearningComponentRequest,
    GetLearningComponentsForStandardRequest,
    GetStandardsForLearningComponentRequest,
    SearchLearningComponentsRequest,
)


def search_learning_components(request: SearchLearningComponentsRequest, ctx: Context) -> ToolResult:
    """Deterministic lexical search over learning components (never standards), paged with a cursor."""
    result = app_state(ctx).components.search_learning_components(request)
    continuation = continuation_block("search_learning_components", request, result.page.next_cursor)
    return summary_result(result.to_wire(), evidence_text.search_learning_components(result), [continuation])


def get_learning_component(request: GetLearningComponentRequest, ctx: Context) -> ToolResult:
    """One exact learning component by frameworkId and nodeId, with the ids of its supports links."""
    result = app_state(ctx).components.get_learning_component(request)
    link = link_block(result.component.uri, "learning component")
    return summary_result(result.to_wire(), evidence_text.get_learning_component(result), [link])


def get_learning_components_for_standard(request: GetLearningComponentsForStandardRequest, ctx: Context) -> ToolResult:
    """The learning components supporting one standard: each supports relationship id, supportConfidence,
    and the links to cite it and open its evidence (printed in the text)."""
    result = app_state(ctx).components.get_learning_components_for_standard(request)
    standard = result.standard
    links = [link_block(standard.uri, f"standard {standard.statement_code or standard.node_id}")]
    return summary_result(result.to_wire(), evidence_text.get_learning_components_for_standard(result), [*links])


def get_standards_for_learning_component(request: GetStandardsForLearningComponentRequest, ctx: Context) -> ToolResult:
    """The standards one learning component supports, with their local grade labels and statement types."""
    result = app_state(ctx).components.get_standards_for_learning_component(request)
    return summary_result(result.to_wire(), evidence_text.get_standards_for_learning_component(result))
