"""Decoding a package's delivery artifacts into typed records, one finding per bad line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from kgfegmcp.errors import DeliveryPropertyDecodingError, JsonlParsingError
from kgfegmcp.finding_codes import FindingCode
from kgfegmcp.packages.artifacts import ArtifactReader
from kgfegmcp.packages.collector import FindingCollector, line_location
from kgfegmcp.packages.decoder import DECODING_CODES, decode_node, decode_relationship
from kgfegmcp.packages.records import ComponentNode, DecodedPackage, ItemNode, RelationshipRecord

#: What decoding the delivery may find: the decoder's codes, and a framework root missing or repeated.
DELIVERY_CODES: tuple[FindingCode, ...] = (*DECODING_CODES, FindingCode.IDENTITY_MISMATCH)


@dataclass(frozen=True, slots=True)
class DecodedDelivery:
    """The records that decoded, and whether that is all of them (only then do the package checks run)."""

    content: DecodedPackage
    complete: bool


def decode_delivery(reader: ArtifactReader, out: FindingCollector) -> DecodedDelivery:
    """Decode the nodes and relationships artifacts; a bad line is a finding, never a repair."""
    out = out.restricted_to(DELIVERY_CODES, "decode_delivery")
    content = DecodedPackage()
    relationships: list[RelationshipRecord] = []
    clean = reader.available("nodes") and reader.available("relationships")
    shared: dict[object, object] = {}
    decoders: tuple[tuple[str, Callable[[bytes, str, int], Any]], ...] = (
        ("nodes", partial(decode_node, shared=shared)),
        ("relationships", decode_relationship),
    )
    for logical_name, decode in decoders:
        if not reader.available(logical_name):
            continue
        for number, line in reader.lines(logical_name):
            try:
                record = decode(line, logical_name, number)
            except (JsonlParsingError, DeliveryPropertyDecodingError) as exc:
                clean = False
                code = FindingCode.named(str(exc.details.get("findingCode", FindingCode.INVALID_JSON_LINE.value)))
                out.add(code, exc.message, artifact=logical_name, location=line_location(number))
                continue
            if isinstance(record, RelationshipRecord):
                relationships.append(record)
            elif isinstance(record, ItemNode):
                content.items.append(record)
            elif isinstance(record, ComponentNode):
                content.components.append(record)
            elif content.framework is None:
                content.framework = record
            else:
                out.add(
                    FindingCode.IDENTITY_MISMATCH,
                    "a package has exactly one StandardsFramework node",
                    artifact=logical_name,
                    location=line_location(number),
                )
        clean = clean and reader.complete(logical_name)  # a line bound or a failed read cut it short
    content.relationships = relationships
    if clean and content.framework is None:
        out.add(FindingCode.IDENTITY_MISMATCH, "no StandardsFramework node in the package", artifact="nodes")
    return DecodedDelivery(content, clean)
