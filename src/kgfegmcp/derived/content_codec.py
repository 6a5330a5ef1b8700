"""Decoded delivery records ↔ compact bytes, for the derived-index cache.

Node records are plain slotted dataclasses of strings, tuples and booleans, so ``marshal`` stores
them as tuples (strings the records share stay shared: marshal writes a reference to each repeat)
and reads them back an order of magnitude faster than re-decoding JSONL. Relationships are stored
as their table's columns, which load as arrays without building a single record.
Like pickle, marshal must not read untrusted bytes; the cache checks a payload's SHA-256 against
its ledger before decoding it, and no code object can be part of a payload.
"""

from __future__ import annotations

import marshal
from dataclasses import fields
from typing import Any

from kgfegmcp.packages.records import (
    ComponentNode,
    DecodedPackage,
    FrameworkNode,
    ItemNode,
)
from kgfegmcp.packages.relationship_table import RelationshipColumns, RelationshipTable

FORMAT = 2
_TYPES = (FrameworkNode, ItemNode, ComponentNode)
_LAYOUT = tuple(tuple(f.name for f in fields(record_type)) for record_type in _TYPES)


def _row(record: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(record, name) for name in names)


def encode_content(content: DecodedPackage) -> bytes:
    """Bytes :func:`decode_content` turns back into an equal :class:`DecodedPackage`."""
    if content.framework is None:
        raise ValueError("only complete packages (with their framework node) are cached")
    framework, item, component = _LAYOUT
    table = RelationshipTable.of(content)
    return marshal.dumps(
        (
            FORMAT,
            _LAYOUT,
            _row(content.framework, framework),
            [_row(r, item) for r in content.items],
            [_row(r, component) for r in content.components],
            table.columns.to_parts(),
        )
    )


def decode_content(data: bytes) -> DecodedPackage:
    """The package :func:`encode_content` stored; ``ValueError`` when the bytes are not such a payload."""
    try:
        format_, layout, framework, items, components, relationships = marshal.loads(data)
        if format_ != FORMAT or layout != _LAYOUT:
            raise ValueError("cached content has another format")
        content = DecodedPackage(
            framework=FrameworkNode(*framework),
            items=[ItemNode(*row) for row in items],
            components=[ComponentNode(*row) for row in components],
        )
        content.relationships = RelationshipTable(RelationshipColumns.from_parts(relationships), content.node_ids())
        return content
    except Exception as exc:  # whatever the bytes hold, the answer is "not such a payload"
        raise ValueError(f"cached content is unreadable ({type(exc).__name__})") from None
