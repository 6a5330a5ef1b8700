"""Every tool-call shape the instructions print is a valid request for that tool's published model.

A shape a host copies must not be rejected as ``invalid_request``; placeholders in angle brackets
stand only where the tools take free text or ids.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from prompt_cases import DEFAULT_FRAMEWORKS, PROMPTS, edge_arguments, minimal_arguments, shapes, tools_called
from pydantic import BaseModel

from kgfegmcp.bootstrap import AppState
from kgfegmcp.mcp.tools import TOOLS

#: Each tool's published request model, from its row.
REQUEST_MODELS: dict[str, type[BaseModel]] = {tool.name: tool.request for tool in TOOLS}


@pytest.mark.parametrize("framework_id", DEFAULT_FRAMEWORKS)
@pytest.mark.parametrize("workflow", PROMPTS)
async def test_shapes_validate_against_the_tools_request_models(
    default_client: Client[Any], default_state: AppState, workflow: str, framework_id: str
) -> None:
    seen_tools: set[str] = set()
    for arguments in (
        minimal_arguments(default_state, workflow, framework_id),
        edge_arguments(default_state, workflow, framework_id, "min"),
        edge_arguments(default_state, workflow, framework_id, "max"),
    ):
        result = await default_client.get_prompt(workflow, arguments)
        text = result.messages[0].content.text
        for tool, shape in zip(tools_called(text), shapes(text), strict=True):
            seen_tools.add(tool)
            REQUEST_MODELS[tool].model_validate(shape["request"])
    assert seen_tools


async def test_shapes_with_only_concrete_values_are_accepted_by_the_live_tools(
    default_client: Client[Any], default_state: AppState
) -> None:
    """Calls that need no earlier result run as printed against the real package and succeed."""
    registered = {tool.name for tool in await default_client.list_tools()}
    executed = 0
    for workflow in PROMPTS:
        arguments = minimal_arguments(default_state, workflow, "brazil-bncc-ensino-fundamental")
        text = (await default_client.get_prompt(workflow, arguments)).messages[0].content.text
        for tool, shape in zip(tools_called(text), shapes(text), strict=True):
            if "<" in str(shape) or tool not in registered:
                continue
            result = await default_client.call_tool(tool, shape, raise_on_error=False)
            first = result.content[0].text if result.content else ""  # type: ignore[union-attr]
            # Real arguments from the real package: the call succeeds as printed.
            assert not result.is_error, (workflow, tool, first)
            executed += 1
    assert executed >= 10
