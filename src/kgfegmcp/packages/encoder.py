"""Delivery schema 1.1 encoder: the exact mirror of the decoder, used only by the writer."""

from __future__ import annotations

import json
from typing import Any

from kgfegmcp.packages.records import (
    PROPERTIES_BY_LABEL,
    ComponentNode,
    FrameworkNode,
    ItemNode,
    NodeRecord,
    RelationshipRecord,
)


def _wire_value(value: object, kind: str) -> str:
    if kind == "bool":
        return "true" if value else "false"
    if kind == "array":
        return json.dumps(list(value), ensure_ascii=False, separators=(",", ":"))  # type: ignore[call-overload]
    return str(value)


def format_confidence(value: float) -> str:
    """Wire form of a confidence in [0, 1] with at most six decimals."""
    if not 0.0 <= value <= 1.0:
        raise ValueError("supportConfidence must be between 0 and 1")
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def node_wire(record: NodeRecord) -> dict[str, Any]:
    """The delivery envelope of one node, with every property as a wire string."""
    properties: dict[str, str] = {}
    for attribute, wire, kind, _required in PROPERTIES_BY_LABEL[record.label]:
        value = getattr(record, attribute)
        if value is None or (kind == "array" and not value and not _required):
            continue
        properties[wire] = _wire_value(value, kind)
    return {"identifier": record.identifier, "labels": [record.label], "properties": properties, "type": "node"}


def relationship_wire(record: RelationshipRecord) -> dict[str, Any]:
    """The delivery envelope of one relationship."""
    properties: dict[str, str] = {
        "relationshipType": record.label,
        "sourceEntityKey": record.source_entity_key,
        "targetEntityKey": record.target_entity_key,
    }
    if record.support_confidence is not None:
        properties["supportConfidence"] = format_confidence(record.support_confidence)
    if record.unresolved_status is not None:
        properties["unresolvedStatus"] = record.unresolved_status
    return {
        "identifier": record.identifier,
        "label": record.label,
        "properties": properties,
        "source_identifier": record.source_identifier,
        "source_labels": [record.source_label],
        "target_identifier": record.target_identifier,
        "target_labels": [record.target_label],
        "type": "relationship",
    }


def typed_fields(record: FrameworkNode | ItemNode | ComponentNode) -> dict[str, Any]:
    """Typed camelCase fields (real booleans and arrays) for detailed, source-shaped artifacts."""
    result: dict[str, Any] = {"identifier": record.identifier}
    for attribute, wire, kind, _required in PROPERTIES_BY_LABEL[record.label]:
        value = getattr(record, attribute)
        if value is not None:
            result[wire] = list(value) if kind == "array" else value
    return result
