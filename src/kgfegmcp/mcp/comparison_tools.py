"""compare_framework_evidence handler: independent per-framework candidates, never an alignment."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp import evidence_text
from kgfegmcp.mcp.boundary import app_state, summary_result
from kgfegmcp.services.requests import CompareFrameworkEvidenceRequest


def compare_framework_evidence(request: CompareFrameworkEvidenceRequest, ctx: Context) -> ToolResult:
    """Retrieve candidate standards independently in 2 to 8 frameworks (maxMatchesPerFramework each), each with
    its parent chain (node ids; each context node described once per framework), for review. Asserts no
    alignment, equivalence or score across them."""
    result = app_state(ctx).comparison.compare_framework_evidence(request)
    return summary_result(result.to_wire(), evidence_text.compare_framework_evidence(result))
