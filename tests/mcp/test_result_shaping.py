"""The protocol-version table and the one function that shapes tool results by it.

Results come from the real server through the in-memory client (which speaks 2026-07-28);
:func:`shape_tool_result` is then applied to them as the middleware applies it for an older version.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.tools.base import ToolResult
from mcp.types import ResourceLink, TextContent
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.models import canonical_json
from kgfegmcp.mcp.protocol_versions import PROTOCOL_VERSIONS, shape_tool_listing, shape_tool_result
from served_apps import SERVED
from tool_calls import call, structured

EF = "brazil-bncc-ensino-fundamental"
OLD = ("2024-11-05", "2025-03-26")
CURRENT = ("2025-06-18", "2025-11-25", "2026-07-28")


def test_the_table_names_every_version_the_sdk_serves() -> None:
    # A new SDK version the table lacks would get the oldest shape: add it here when the SDK adds it.
    assert list(PROTOCOL_VERSIONS) == [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]
    assert [v for v, f in PROTOCOL_VERSIONS.items() if not (f.resource_links or f.structured_content)] == list(OLD)


async def linking_results(client: Client[Any]) -> dict[str, ToolResult]:
    """One real result of every tool that emits resource links, plus a progression tool (canonical JSON)."""
    components = structured(await call(client, "search_learning_components", {"query": "fracoes", "limit": 2}))
    component = components["hits"][0]["nodeId"]
    standard = {"frameworkId": EF, "statementCode": "EF06MA07"}
    requests: dict[str, dict[str, Any]] = {
        "list_frameworks": {"limit": 2},
        "get_framework": {"frameworkId": EF},
        "search_standards": {"query": "fracoes", "limit": 3},
        "get_standard": standard,
        "get_standard_context": standard,
        "search_learning_components": {"query": "fracoes", "limit": 2},
        "get_learning_component": {"frameworkId": EF, "nodeId": component},
        "get_learning_components_for_standard": standard,
        "get_standards_for_learning_component": {"frameworkId": EF, "nodeId": component},
        "get_standard_progressions": standard,
        "get_workflow_instructions": {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"},
    }
    results = {}
    for tool, request in requests.items():
        result = await call(client, tool, request)
        results[tool] = ToolResult(content=result.content, structured_content=result.structured_content)
    return results


@pytest.mark.parametrize("version", OLD)
async def test_old_versions_get_the_whole_evidence_as_text(default_client: Client[Any], version: str) -> None:
    results = await linking_results(default_client)
    assert any(isinstance(b, ResourceLink) for r in results.values() for b in r.content)
    for tool, result in results.items():
        shaped = shape_tool_result(result, version)
        assert shaped.structured_content is None, tool
        assert all(isinstance(block, TextContent) for block in shaped.content), tool
        kept = [block for block in result.content if not isinstance(block, ResourceLink)]
        assert shaped.content[: len(kept)] == kept, tool  # summary and continuation unchanged, in order
        texts = [block.text for block in shaped.content if isinstance(block, TextContent)]
        evidence = [text for text in texts if text == canonical_json(result.structured_content)]
        assert len(evidence) == 1, tool  # once, even where the text already was the canonical JSON
        assert json.loads(evidence[0]) == result.structured_content, tool
        # Every link this server emits cites a URI the evidence holds, so none needs listing apart.
        assert not any(text.startswith("Resources:\n") for text in texts), tool
        assert shape_tool_result(result, version) == shaped  # deterministic


@pytest.mark.parametrize("version", CURRENT)
async def test_current_versions_get_the_result_unchanged(default_client: Client[Any], version: str) -> None:
    for result in (await linking_results(default_client)).values():
        assert shape_tool_result(result, version) is result


def test_a_link_the_evidence_does_not_hold_is_listed_in_text() -> None:
    cited = "kgfegmcp://framework/f/snapshot/s/standard/n"
    result = ToolResult(
        content=[
            TextContent(type="text", text="summary"),
            ResourceLink(type="resource_link", uri=cited, name="standard"),
            ResourceLink(type="resource_link", uri=f"{cited}/provenance", name="standard provenance"),
            ResourceLink(type="resource_link", uri="kgfegmcp://catalog", name="catalog"),
        ],
        structured_content={"standard": {"uri": cited}},
    )
    shaped = shape_tool_result(result, "2025-03-26")
    assert [block.text for block in shaped.content if isinstance(block, TextContent)] == [
        "summary",
        '{"standard":{"uri":"kgfegmcp://framework/f/snapshot/s/standard/n"}}',
        f"Resources:\nstandard provenance: {cited}/provenance\ncatalog: kgfegmcp://catalog",
    ]


def test_an_unknown_version_gets_the_oldest_shape() -> None:
    result = ToolResult(
        content=[TextContent(type="text", text="summary"), ResourceLink(type="resource_link", uri="u:1", name="n")],
        structured_content={"uri": "u:1"},
    )
    assert shape_tool_result(result, "1999-01-01") == shape_tool_result(result, "2024-11-05")


@pytest.mark.parametrize("version", list(PROTOCOL_VERSIONS))
async def test_a_listing_declares_output_schemas_only_where_results_carry_structured_content(
    default_state: AppState, version: str
) -> None:
    """A client validating results against a declared schema would refuse every result without structured content."""
    tools = await SERVED.app(default_state).list_tools()
    assert all(tool.output_schema is not None for tool in tools)
    shaped = shape_tool_listing(tools, version)
    declared = PROTOCOL_VERSIONS[version].structured_content
    assert [tool.output_schema is not None for tool in shaped] == [declared] * len(tools)
    if declared:
        assert shaped is tools
    # Nothing else about a tool changes.
    listed = [tool.to_mcp_tool().model_dump(exclude={"output_schema"}) for tool in tools]
    assert [tool.to_mcp_tool().model_dump(exclude={"output_schema"}) for tool in shaped] == listed
