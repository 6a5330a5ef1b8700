"""The public tool names, in the order clients list them (docs/tools.md).

A name is the one fact about a tool that layers below the MCP adapters need: services seal cursors for
it, and prompt configurations name the tools a host should call. Each tool's full declaration (request,
handler, result model, continuation) is its row in ``mcp/register.TOOLS``, keyed by these names.
"""

from __future__ import annotations

from enum import StrEnum


class ToolName(StrEnum):
    """One member per public tool; the value is the name on the wire."""

    LIST_FRAMEWORKS = "list_frameworks"
    GET_FRAMEWORK = "get_framework"
    GET_CAPABILITIES = "get_capabilities"
    GET_FRAMEWORK_STATISTICS = "get_framework_statistics"
    SEARCH_STANDARDS = "search_standards"
    GET_STANDARD = "get_standard"
    GET_STANDARD_CONTEXT = "get_standard_context"
    COMPARE_FRAMEWORK_EVIDENCE = "compare_framework_evidence"
    # Learning components (never mixed with standards).
    SEARCH_LEARNING_COMPONENTS = "search_learning_components"
    GET_LEARNING_COMPONENT = "get_learning_component"
    GET_LEARNING_COMPONENTS_FOR_STANDARD = "get_learning_components_for_standard"
    GET_STANDARDS_FOR_LEARNING_COMPONENT = "get_standards_for_learning_component"
    # The five progression tools (complete canonical JSON text; one package each).
    GET_STANDARD_PROGRESSIONS = "get_standard_progressions"
    SEARCH_LEARNING_PROGRESSIONS = "search_learning_progressions"
    GET_LEARNING_PROGRESSION = "get_learning_progression"
    TRAVERSE_LEARNING_PROGRESSIONS = "traverse_learning_progressions"
    FIND_LEARNING_PROGRESSION_PATHS = "find_learning_progression_paths"
    # Access to evidence, then the workflow instructions, last.
    READ_EVIDENCE = "read_evidence"
    GET_WORKFLOW_INSTRUCTIONS = "get_workflow_instructions"
