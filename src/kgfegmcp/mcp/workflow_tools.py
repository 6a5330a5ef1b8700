"""``get_workflow_instructions``: seven workflow prompts as a tool, for clients without prompt support."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp.boundary import app_state, canonical_result, link_block
from kgfegmcp.services.workflow_request import GetWorkflowInstructionsRequest


def get_workflow_instructions(request: GetWorkflowInstructionsRequest, ctx: Context) -> ToolResult:
    """A workflow prompt's instructions (lesson plans, practice items, progression plans, reviews, comparisons),
    for hosts without MCP prompts."""
    result = app_state(ctx).prompts.workflow_instructions(request)
    links = [link_block(p.manifest_uri, f"package manifest {p.graph_package_id}") for p in result.packages]
    return canonical_result(result.to_wire(), [*links])
