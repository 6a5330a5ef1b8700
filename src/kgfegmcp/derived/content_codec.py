"""Decoded delivery records ↔ compact bytes, for the derived-index cache.

The records are plain slotted dataclasses of strings, tuples, booleans and floats, so ``marshal``
stores them as tuples and reads them back an order of magnitude faster than re-decoding JSONL.
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
    RelationshipRecord,
)

FORMAT = 1
_TYPES = (FrameworkNode, ItemNode, ComponentNode, RelationshipRecord)
_LAYOUT = tuple(tuple(f.name for f in fields(record_type)) for record_type in _TYPES)


def _row(record: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(record, name) for name in names)


def encode_content(content: DecodedPackage) -> bytes:
    """Bytes :func:`decode_content` turns back into an equal :class:`DecodedPackage`."""
    if content.framework is None:
        raise ValueError("only complete packages (with their framework node) are cached")
    framework, item, component, relationship = _LAYOUT
    return marshal.dumps(
        (
            FORMAT,
            _LAYOUT,
            _row(content.framework, framework),
            [_row(r, item) for r in content.items],
            [_row(r, component) for r in content.components],
            [_row(r, relationship) for r in content.relationships],
        )
    )


def decode_content(data: bytes) -> DecodedPackage:
    """The package :func:`encode_content` stored; ``ValueError`` when the bytes are not such a payload."""
    try:
        format_, layout, framework, items, components, relationships = marshal.loads(data)
        if format_ != FORMAT or layout != _LAYOUT:
            raise ValueError("cached content has another format")
        return DecodedPackage(
            framework=FrameworkNode(*framework),
            items=[ItemNode(*row) for row in items],
            components=[ComponentNode(*row) for row in components],
            relationships=[RelationshipRecord(*row) for row in relationships],
        )
    except Exception as exc:  # whatever the bytes hold, the answer is "not such a payload"
        raise ValueError(f"cached content is unreadable ({type(exc).__name__})") from None
