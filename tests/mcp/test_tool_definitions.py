"""Tool definitions a model can afford: what tools/list sends of every tool (name, description, inputSchema)
fits a byte budget, each description says in at most two sentences when to use the tool and what comes back,
and the framework-dependent filters point to get_framework for their values.

A host sends these definitions to its model on every turn, so their size is a cost paid on every turn.
Sizes are bytes of compact JSON (UTF-8, as the wire carries it), at the newest protocol version.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastmcp import Client

from kgfegmcp.mcp.tools import TOOLS
from tool_calls import error

#: For every tool together, and for any one tool (1 KB = 1,000 bytes).
TOTAL_BUDGET = 16_000
TOOL_BUDGET = 2_000
#: A description is at most two sentences and this many characters.
MAX_SENTENCES = 2
MAX_DESCRIPTION_CHARS = 250
#: Filters whose values are a framework's own vocabulary (grade labels, statement types, subjects).
FRAMEWORK_VOCABULARY = ("gradeLevel", "gradeLevels", "statementTypes", "academicSubjects")


def _model_view(tool: Any) -> dict[str, Any]:
    """What a model reads of one tool: its name, description and input schema."""
    listed = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"name": listed["name"], "description": listed.get("description", ""), "inputSchema": listed["inputSchema"]}


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


async def test_tool_definitions_fit_the_budget(fixture_client: Client[Any]) -> None:
    listed = (await fixture_client.list_tools_mcp()).tools
    sizes = {tool.name: _size(_model_view(tool)) for tool in listed}
    assert list(sizes) == [tool.name for tool in TOOLS]
    over = {name: size for name, size in sizes.items() if size > TOOL_BUDGET}
    assert not over, f"tool definitions over {TOOL_BUDGET} bytes: {over}"
    assert sum(sizes.values()) <= TOTAL_BUDGET, f"{sum(sizes.values())} bytes for all tools: {sizes}"


async def test_each_description_is_two_sentences_at_most(fixture_client: Client[Any]) -> None:
    for tool in (await fixture_client.list_tools_mcp()).tools:
        description = tool.description or ""
        sentences = [part for part in re.split(r"(?<=[.!?])\s+", description.strip()) if part]
        assert 1 <= len(sentences) <= MAX_SENTENCES, f"{tool.name}: {description!r}"
        assert len(description) <= MAX_DESCRIPTION_CHARS, f"{tool.name}: {len(description)} characters"
        assert description.endswith("."), tool.name


async def test_framework_vocabulary_filters_point_to_get_framework(fixture_client: Client[Any]) -> None:
    found = []
    for tool in (await fixture_client.list_tools_mcp()).tools:
        fields = tool.input_schema["properties"]["request"]["properties"]
        for name in FRAMEWORK_VOCABULARY:
            if name in fields:
                found.append(f"{tool.name}.{name}")
                assert "get_framework" in fields[name].get("description", ""), f"{tool.name}.{name}"
    assert "search_standards.statementTypes" in found and len(found) >= 8, found


async def test_a_workflow_refusal_names_the_workflow_fields(fixture_client: Client[Any]) -> None:
    """The listing leaves the per-workflow oneOf out, so a refusal says which fields the workflow takes."""
    request = {"workflow": "practice_item_set", "frameworkId": "brazil-bncc-ensino-fundamental", "gradeLevels": ["x"]}
    message = await error(fixture_client, "get_workflow_instructions", request)
    assert message.startswith("invalid_request: "), message
    assert (
        "practice_item_set takes frameworkId (required), snapshotId, topic (required), gradeLevel, practiceCount, "
        "learnerContext: gradeLevels is not one of them; topic is missing" in message
    ), message
    either = {"workflow": "learning_progression_support_plan", "frameworkId": "brazil-bncc-ensino-fundamental"}
    message = await error(fixture_client, "get_workflow_instructions", either)
    assert "standard (or topic), topic (or standard)" in message and "standard or topic is missing" in message
