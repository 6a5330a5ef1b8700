"""The progression tests' own check (the whole-result size ceiling) beside the shared call helpers."""

from __future__ import annotations

import json
from typing import Any

from fastmcp.client.client import CallToolResult

from kgfegmcp.core.rendering import RESULT_MAX_BYTES, RESULT_MAX_CHARS, canonical_text, rendered_size
from tool_calls import call, error_code, structured, texts

__all__ = ["assert_canonical_within_ceiling", "call", "error_code", "records", "structured", "texts", "traversal_links"]


def assert_canonical_within_ceiling(result: CallToolResult) -> dict[str, Any]:
    """A progression result: one text block, the complete JSON of the structured content, within the ceiling."""
    content = structured(result)
    (text,) = texts(result)
    assert len(result.content) == 1
    assert json.loads(text) == content
    wire_structured = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    assert len(text) + len(wire_structured) <= RESULT_MAX_CHARS
    assert len(text.encode()) + len(wire_structured.encode()) <= RESULT_MAX_BYTES
    # The weight the services fit is the weight of what was rendered: the text is canonical_text, and
    # rendered_size counts it and the structured content it parses to.
    assert text == canonical_text(content)
    size = rendered_size(content)
    assert (size.chars, size.bytes) == (2 * len(text), 2 * len(text.encode()))
    return content


def traversal_links(content: dict[str, Any]) -> list[dict[str, Any]]:
    """A traversal's followed links in the order followed (each node's ``followed`` in node order), each with
    the node it was followed from as ``from``."""
    return [{"from": node["nodeId"], **link} for node in content["nodes"] for link in node.get("followed", [])]


def records(content: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The standards a progression result names once, by node id."""
    return {standard["nodeId"]: standard for standard in content["standards"]}
