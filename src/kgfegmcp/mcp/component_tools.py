"""Learning-component tool handlers: request in, service call, deterministic text summary out."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp import evidence_text
from kgfegmcp.mcp.boundary import app_state, link_block, summary_result
from kgfegmcp.services.requests import (
    GetLearningComponentRequest,
    GetLearningComponentsForStandardRequest,
    GetStandardsForLearningComponentRequest,
    SearchLearningComponentsRequest,
)


def search_learning_components(request: SearchLearningComponentsRequest, ctx: Context) -> ToolResult:
    """Find learning components (fine-grained skills) by words: each with its text, nodeId and the
    standards it supports."""
    result = app_state(ctx).components.search_learning_components(request)
    return summary_result(result.to_wire(), evidence_text.search_learning_components(result))


def get_learning_component(request: GetLearningComponentRequest, ctx: Context) -> ToolResult:
    """One learning component by nodeId: its text and the standards it supports."""
    result = app_state(ctx).components.get_learning_component(request)
    link = link_block(result.component.uri, "learning component")
    return summary_result(result.to_wire(), evidence_text.get_learning_component(result), [link])


def get_learning_components_for_standard(request: GetLearningComponentsForStandardRequest, ctx: Context) -> ToolResult:
    """The learning components that support one standard (steps to teach it), each with its confidence and
    evidence link."""
    result = app_state(ctx).components.get_learning_components_for_standard(request)
    standard = result.standard
    links = [link_block(standard.uri, f"standard {standard.statement_code or standard.node_id}")]
    return summary_result(result.to_wire(), evidence_text.get_learning_components_for_standard(result), [*links])


def get_standards_for_learning_component(request: GetStandardsForLearningComponentRequest, ctx: Context) -> ToolResult:
    """The standards one learning component supports, each with statement, code, grades and type."""
    result = app_state(ctx).components.get_standards_for_learning_component(request)
    return summary_result(result.to_wire(), evidence_text.get_standards_for_learning_component(result))
