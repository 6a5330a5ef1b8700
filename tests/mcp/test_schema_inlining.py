"""Our one-walk ``$ref`` inlining makes of every schema we serve exactly what FastMCP's ``dereference_refs``
makes of it (the listing then is the same, byte for byte, only made faster), and defers to it otherwise."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp.tools import FunctionTool
from fastmcp.utilities.json_schema import dereference_refs

from kgfegmcp.mcp.listing import inline_refs
from kgfegmcp.mcp.tools import TOOLS


def served_schemas() -> list[tuple[str, dict[str, Any]]]:
    """Every tool's input schema as FastMCP derives it from the handler, and every result model's wire schema."""
    inputs = [
        (f"{tool.name} input", FunctionTool.from_function(tool.handler, name=tool.name).parameters) for tool in TOOLS
    ]
    outputs = [(f"{tool.name} output", tool.result.wire_schema()) for tool in TOOLS]
    return inputs + outputs


@pytest.mark.parametrize(
    ("name", "schema"), served_schemas(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_inlining_a_served_schema_matches_fastmcp_byte_for_byte(name: str, schema: dict[str, Any]) -> None:
    assert "$defs" in schema  # pydantic refers to every model it nests: there is something to inline
    inlined = inline_refs(schema)
    assert json.dumps(inlined) == json.dumps(dereference_refs(schema)), name  # same keys, order and values
    assert "$ref" not in json.dumps(inlined)


def test_keywords_beside_a_reference_win_and_definitions_are_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {"grade": {"$ref": "#/$defs/Grade", "description": "the grade asked for", "default": "5"}},
        "$defs": {"Grade": {"type": "string", "description": "a grade", "enum": ["4", "5"]}},
    }
    expected = {
        "type": "object",
        "properties": {
            "grade": {"type": "string", "description": "the grade asked for", "enum": ["4", "5"], "default": "5"}
        },
    }
    assert json.dumps(inline_refs(schema)) == json.dumps(expected) == json.dumps(dereference_refs(schema))


@pytest.mark.parametrize(
    "schema",
    [
        # A cycle cannot be inlined.
        {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
        },
        # The root itself a reference.
        {"$ref": "#/$defs/Root", "$defs": {"Root": {"type": "object", "properties": {"a": {"type": "string"}}}}},
        # A reference to somewhere other than a definition.
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}}},
    ],
    ids=["cycle", "root reference", "other pointer"],
)
def test_what_one_walk_cannot_inline_gets_fastmcps_treatment(schema: dict[str, Any]) -> None:
    assert inline_refs(schema) == dereference_refs(schema)
