"""``get_workflow_instructions``: seven workflow prompts as a tool, for clients without prompt support."""

from __future__ import annotations

from fastmcp.server.context import Context
from fastmcp.tools.base import ToolResult

from kgfegmcp.mcp.boundary import app_state, canonical_result, link_block
from kgfegmcp.services.workflow_request import GetWorkflowInstructionsRequest


def get_workflow_instructions(request: GetWorkflowInstructionsRequest, ctx: Context) -> ToolResult:
    """Return exactly the instructions a native workflow prompt renders (multigrade_lesson_plan,
    practice_item_set, learning_progression_teaching_sequence, learning_progression_support_plan,
    learning_progression_curriculum_review, administrator_alignment_review, cross_framework_comparison),
    for clients that cannot use MCP prompts. Fields are the prompt's arguments in camelCase with JSON types.
    The text block is the complete canonical JSON of the result; instructions are never clipped."""
    result = app_state(ctx).prompts.workflow_instructions(request)
    links = [link_block(p.manifest_uri, f"package manifest {p.graph_package_id}") for p in result.packages]
    return canonical_result(result.to_wire(), [*links])
