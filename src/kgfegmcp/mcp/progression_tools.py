"""The five progression tool handlers: the complete canonical JSON as text, equal to the structured content.

No domain logic: the service has already fitted each result to the 1 MiB / 100,000-character ceiling,
counting the text block and the structured content together, so no other block is added here.
"""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp.boundary import app_state, canonical_result
from kgfegmcp.services.requests import (
    FindLearningProgressionPathsRequest,
    GetLearningProgressionRequest,
    GetStandardProgressionsRequest,
    SearchLearningProgressionsRequest,
    TraverseLearningProgressionsRequest,
)


def get_standard_progressions(request: GetStandardProgressionsRequest, ctx: Context) -> ToolResult:
    """A standard's stored progression links (buildsTowards: what it builds on or leads to; relatesTo),
    with the linked standards."""
    return canonical_result(app_state(ctx).progressions.get_standard_progressions(request).to_wire())


def search_learning_progressions(request: SearchLearningProgressionsRequest, ctx: Context) -> ToolResult:
    """Find stored progression links in one framework by grade, subject, link type or words, with the
    linked standards."""
    return canonical_result(app_state(ctx).progressions.search_learning_progressions(request).to_wire())


def get_learning_progression(request: GetLearningProgressionRequest, ctx: Context) -> ToolResult:
    """One stored progression link by id, with both standards and its provenance link."""
    return canonical_result(app_state(ctx).progressions.get_learning_progression(request).to_wire())


def traverse_learning_progressions(request: TraverseLearningProgressionsRequest, ctx: Context) -> ToolResult:
    """Follow stored progression links several steps from one standard: the standards reached, the links
    followed and what the bounds cut."""
    return canonical_result(app_state(ctx).progressions.traverse_learning_progressions(request).to_wire())


def find_learning_progression_paths(request: FindLearningProgressionPathsRequest, ctx: Context) -> ToolResult:
    """The shortest buildsTowards paths between two standards of one framework, with every standard on
    them: a teaching sequence."""
    return canonical_result(app_state(ctx).progressions.find_learning_progression_paths(request).to_wire())
