"""compare_framework_evidence handler: independent per-framework candidates, never an alignment."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp import evidence_text
from kgfegmcp.mcp.boundary import app_state, summary_result
from kgfegmcp.services.requests import CompareFrameworkEvidenceRequest


def compare_framework_evidence(request: CompareFrameworkEvidenceRequest, ctx: Context) -> ToolResult:
    """How 2-8 frameworks treat one topic: each searched on its own for candidate standards and their parent
    chains. It never aligns them; judging a match is yours."""
    result = app_state(ctx).comparison.compare_framework_evidence(request)
    return summary_result(result.to_wire(), evidence_text.compare_framework_evidence(result))
