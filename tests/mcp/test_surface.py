"""The public tool surface as docs/tools.md declares it: names, order, annotations and published schemas of every tool."""

from __future__ import annotations

from typing import Any, get_type_hints

from fastmcp import Client

from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.mcp.register import full_input_schema
from kgfegmcp.mcp.tools import TOOLS
from kgfegmcp.services.requests import RequestModel


def _properties(request: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """Every property a request schema can carry, across its oneOf/anyOf branches too."""
    found = dict(request.get("properties", {}))
    for branch in [*request.get("oneOf", []), *request.get("anyOf", [])]:
        branch = defs.get(branch["$ref"].split("/")[-1], branch) if "$ref" in branch else branch
        found.update(branch.get("properties", {}))
    return found


def test_each_tool_is_declared_once_with_its_request_and_result() -> None:
    """One row per name, in the order of ``ToolName``; its request is a strict request model, which its example
    request satisfies, and the handler registered for it takes that model."""
    assert [tool.name for tool in TOOLS] == list(ToolName)
    for tool in TOOLS:
        assert issubclass(tool.request, RequestModel), tool.name
        assert tool.request.model_validate(tool.example_request(), strict=True), tool.name
        assert get_type_hints(tool.handler)["request"] is tool.request, tool.name
        # A continued tool's answer pages with a cursor its text can hand back.
        assert ("page" in tool.result.model_fields) >= tool.continues, tool.name


async def test_every_tool_is_listed_as_docs_tools_md_declares(fixture_client: Client[Any]) -> None:
    tools = await fixture_client.list_tools()
    names = [tool.name for tool in tools]
    assert names == list(ToolName)  # every tool, each once, in the declared order
    for tool in tools:
        assert tool.description
        annotations = tool.annotations
        assert annotations is not None
        assert annotations.read_only_hint is True and annotations.destructive_hint is False
        assert annotations.idempotent_hint is True and annotations.open_world_hint is False
        schema = tool.input_schema
        assert list(schema["properties"]) == ["request"] and schema["required"] == ["request"]
        # Listed without it (a model always sends the one field); any other argument is refused all the same
        # (test_request_validation), and the full schema says so.
        assert "additionalProperties" not in schema
        assert full_input_schema(tool.name)["additionalProperties"] is False
        request = schema["properties"]["request"]
        request = schema.get("$defs", {}).get(request["$ref"].split("/")[-1], request) if "$ref" in request else request
        assert request.get("additionalProperties") is False, f"{tool.name} accepts undeclared request fields"
        fields = _properties(request, schema.get("$defs", {}))
        assert fields, tool.name
        for field in fields:
            assert "_" not in field and field[0].islower(), f"{tool.name}.{field} is not lower camel case"


async def test_published_schemas_carry_the_spec_bounds(fixture_client: Client[Any]) -> None:
    """The full schema (docs/tools.md) carries every spec bound; tools/list the integer bounds, enums and defaults."""
    listed = {tool.name: tool.input_schema["properties"]["request"] for tool in await fixture_client.list_tools()}
    schemas = {name: full_input_schema(name)["properties"]["request"] for name in listed}
    for tool, request in listed.items():
        for name, spec in request["properties"].items():
            if spec.get("type") == "integer":
                assert spec == schemas[tool]["properties"][name], f"{tool}.{name}"
            if "enum" in spec or "default" in spec:
                assert {k: spec[k] for k in ("enum", "default") if k in spec} == {
                    k: schemas[tool]["properties"][name][k] for k in ("enum", "default") if k in spec
                }

    def field(tool: str, name: str) -> dict[str, Any]:
        spec = schemas[tool]["properties"][name]
        return next((s for s in spec.get("anyOf", []) if s.get("type") != "null"), spec)

    for tool in ("list_frameworks", "search_standards"):
        assert field(tool, "limit") | {"default": schemas[tool]["properties"]["limit"].get("default")} == {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 25,
        }
        cursor = field(tool, "cursor")
        assert cursor["maxLength"] == 4096 and cursor["pattern"] == "^[A-Za-z0-9_-]+$"
    search = schemas["search_standards"]
    assert field("search_standards", "query")["maxLength"] == 512
    assert search["required"] == ["query"]
    for name in ("frameworkIds", "snapshotIds", "gradeLevels", "statementTypes", "academicSubjects"):
        assert field("search_standards", name)["maxItems"] == 64
    assert field("search_standards", "searchMode")["enum"] == ["auto", "text", "code"]
    expected = {
        "ancestorDepth": (0, 64, 16),
        "childDepth": (0, 64, 1),
        "maxNodes": (1, 2000, 250),
        "maxPaths": (1, 1000, 128),
        "maxPathNodeOccurrences": (1, 100000, 8192),
    }
    context = schemas["get_standard_context"]["properties"]
    for name, (low, high, default) in expected.items():
        assert (context[name]["minimum"], context[name]["maximum"], context[name]["default"]) == (low, high, default)
    for tool in ("get_standard", "get_standard_context"):
        assert set(schemas[tool]["properties"]) >= {
            "frameworkId",
            "snapshotId",
            "nodeId",
            "caseIdentifierUUID",
            "statementCode",
        }
