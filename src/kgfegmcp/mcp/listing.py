"""What ``tools/list`` shows of a tool's input schema: the compact form a model reads on every turn.

A host sends every tool definition to its model, so the listed ``inputSchema`` keeps what a model needs
to build a request (field names, types, enums, defaults, required fields, integer bounds and each field's
one-line description) and leaves out what costs bytes on every turn and helps no caller choose: string
lengths and patterns, array sizes, ``uniqueItems``, object key counts and key names, the closing of
objects inside the request, and the JSON Schema forms of rules across fields (``oneOf``, ``allOf``,
``if``/``then``, ``dependentRequired``), which the descriptions state in words. Validation does not
change: the request models still enforce every one of them, with ``invalid_request`` naming the field.
``docs/tools.md`` shows the full schema, every bound and rule included.
"""

from __future__ import annotations

from typing import Any

from fastmcp.utilities.json_schema import dereference_refs

#: Keywords on one value left out of the listing (checked by the request models all the same).
STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern"})
ARRAY_KEYWORDS = frozenset({"minItems", "maxItems", "uniqueItems"})
OBJECT_KEYWORDS = frozenset({"minProperties", "maxProperties", "propertyNames"})
#: What closes an object to undeclared keys or constrains their names: listed on the request only.
CLOSING_KEYWORDS = frozenset({"additionalProperties", "patternProperties"})
#: Rules across fields, left out of the listing: each is a sentence in a field's description.
RULE_KEYWORDS = frozenset({"oneOf", "allOf", "if", "then", "else", "dependentRequired"})


class _NotInlinable(Exception):
    """A reference other than to a definition of the same schema, or a cycle of them."""


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each ``#/$defs/...`` reference replaced by its definition and ``$defs`` dropped.

    The keywords beside a ``$ref`` (a description, a default) are kept over the definition's. This is
    what FastMCP's ``dereference_refs`` makes of the schemas pydantic generates for our models, byte for
    byte (``tests/mcp/test_schema_inlining.py``), in one walk instead of its general, defensive passes:
    a twentieth of the time, about 50 ms of every start. Any other reference (the root's own, one to
    elsewhere) and a cycle, which cannot be inlined, get FastMCP's own treatment.
    """
    definitions = schema.get("$defs", {})

    def walk(node: Any, through: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(item, through) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" not in node:
            return {key: walk(value, through) for key, value in node.items()}
        name = str(node["$ref"]).removeprefix("#/$defs/")
        if name in through or name not in definitions or node["$ref"] != f"#/$defs/{name}":
            raise _NotInlinable
        inlined = walk(definitions[name], through | {name})
        if not isinstance(inlined, dict):
            raise _NotInlinable
        # The keywords beside the reference as written, as FastMCP merges them.
        inlined.update({key: value for key, value in node.items() if key not in ("$ref", "$defs")})
        return inlined

    try:
        if "$ref" in schema:  # the root itself a reference
            raise _NotInlinable
        return {key: walk(value, frozenset()) for key, value in schema.items() if key != "$defs"}
    except _NotInlinable:
        return dereference_refs(schema)


def listed_input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a tool's full input schema) as ``tools/list`` shows it: ``$ref`` inlined, then compacted.

    Only the ``request`` object is listed closed (``additionalProperties: false``): the arguments object
    and the objects inside the request (standard selectors, per-framework entries) are listed open, and
    their keys' patterns left out, though the server refuses an undeclared field at every level all the
    same. The listing therefore never refuses a request the server accepts.
    """
    full = inline_refs(schema)
    listed: dict[str, Any] = _compact(full)
    request = full.get("properties", {}).get("request")
    if isinstance(request, dict):
        listed["properties"]["request"] = _compact(request, closed=True)
    return listed


def _compact(schema: Any, closed: bool = False) -> Any:
    """``schema`` without the keywords the listing leaves out; ``closed``: this object keeps its closing."""
    if isinstance(schema, list):
        return [_compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    by_type = {"string": STRING_KEYWORDS, "array": ARRAY_KEYWORDS, "object": OBJECT_KEYWORDS}
    left_out = RULE_KEYWORDS | by_type.get(str(schema.get("type")), frozenset())
    if schema.get("type") == "object" and not closed:
        left_out = left_out | CLOSING_KEYWORDS
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in left_out:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _compact(spec) for name, spec in value.items()}
        else:
            out[key] = _compact(value)
    return out
