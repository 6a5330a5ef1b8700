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
    """Stored progression links of one standard (buildsTowards before relatesTo), by direction and type, paged
    with page.nextCursor. The text is the complete result as JSON; a page may stop early at the size ceiling."""
    return canonical_result(app_state(ctx).progressions.get_standard_progressions(request).to_wire())


def search_learning_progressions(request: SearchLearningProgressionsRequest, ctx: Context) -> ToolResult:
    """Discover stored progression links inside one package by grade, subject, link type and optional text,
    paged with page.nextCursor. The text is the complete result as JSON."""
    return canonical_result(app_state(ctx).progressions.search_learning_progressions(request).to_wire())


def get_learning_progression(request: GetLearningProgressionRequest, ctx: Context) -> ToolResult:
    """One exact stored progression link by its relationship id (progressionId), with both standards; its
    links are the package uri + /learning-progression/<id> or /relationship/<id>. The text is the complete JSON."""
    return canonical_result(app_state(ctx).progressions.get_learning_progression(request).to_wire())


def traverse_learning_progressions(request: TraverseLearningProgressionsRequest, ctx: Context) -> ToolResult:
    """Bounded traversal of stored links from one standard; reports scopeComplete, graphExhausted, the frontier,
    counters and truncationReasons (no cursor). The text is the complete result as JSON."""
    return canonical_result(app_state(ctx).progressions.traverse_learning_progressions(request).to_wire())


def find_learning_progression_paths(request: FindLearningProgressionPathsRequest, ctx: Context) -> ToolResult:
    """Bounded directed buildsTowards paths between two standards of one package, shortest first; stops with
    byte_limit and names nextUnreturnedPath when the next path would not fit. The text is the complete JSON."""
    return canonical_result(app_state(ctx).progressions.find_learning_progression_paths(request).to_wire())
