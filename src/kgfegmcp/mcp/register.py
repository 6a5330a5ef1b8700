"""The single registration boundary: exactly these tools, resources and prompts are public."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastmcp import FastMCP
from mcp.types import ToolAnnotations

from kgfegmcp.mcp import standards_tools

READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)

#: Tool name → handler. The order here is the order clients list them in.
TOOLS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("list_frameworks", standards_tools.list_frameworks),
    ("get_framework", standards_tools.get_framework),
    ("get_capabilities", standards_tools.get_capabilities),
    ("get_framework_statistics", standards_tools.get_framework_statistics),
    ("search_standards", standards_tools.search_standards),
    ("get_standard", standards_tools.get_standard),
    ("get_standard_context", standards_tools.get_standard_context),
)


def register(server: FastMCP) -> None:
    """Declare the public surface on ``server``; duplicates are rejected by the server itself."""
    for name, handler in TOOLS:
        server.tool(handler, name=name, annotations=READ_ONLY)
