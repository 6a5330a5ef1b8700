"""Decoding a package's delivery artifacts into typed records; bad lines are counted per kind, never per line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

from kgfegmcp.core.errors import DeliveryPropertyDecodingError, JsonlParsingError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.artifacts import ArtifactReader
from kgfegmcp.packages.collector import FindingCollector, line_location
from kgfegmcp.packages.decoder import DECODING_CODES, decode_node, decode_relationship
from kgfegmcp.packages.records import ComponentNode, DecodedPackage, ItemNode, RelationshipRecord

#: What decoding the delivery may find: the decoder's codes, and a framework root missing or repeated.
DELIVERY_CODES: tuple[FindingCode, ...] = (*DECODING_CODES, FindingCode.IDENTITY_MISMATCH)
#: Line numbers a finding lists as where its kind of bad line first occurs.
LISTED_LINES: Final = 5
#: Bad lines of one artifact decoded before the rest of it is only read for its checksum. The package is
#: refused at the first; decoding a gigabyte of bad lines one by one would only say so for hours.
MAX_DECODED_BAD_LINES: Final = 1000


@dataclass(frozen=True, slots=True)
class DecodedDelivery:
    """The records that decoded, and whether that is all of them (only then do the package checks run)."""

    content: DecodedPackage
    complete: bool


@dataclass(slots=True)
class _BadLines:
    """One kind of bad line in one artifact: its first message, its first line numbers and how many there were."""

    code: FindingCode
    message: str
    lines: list[int] = field(default_factory=list)
    count: int = 0

    def add(self, line: int, count: int = 1) -> None:
        self.lines.extend(range(line, line + min(count, LISTED_LINES - len(self.lines))))
        self.count += count

    def finding_message(self, artifact: str, stopped: bool) -> str:
        """The first line's own message, or how many there were, where the first were, and the first's message."""
        if self.count == 1:
            message = self.message
        else:
            listed = ", ".join(str(line) for line in self.lines) + (", …" if self.count > len(self.lines) else "")
            message = f"{self.count:,} lines of {artifact} (lines {listed}); the first: {self.message}"
        if stopped:
            message += (
                f"; decoding stopped after {MAX_DECODED_BAD_LINES:,} bad lines (the rest of {artifact} was only "
                "checked against its checksum)"
            )
        return message[:2000]


def decode_delivery(reader: ArtifactReader, out: FindingCollector) -> DecodedDelivery:
    """Decode the nodes and relationships artifacts; bad lines are findings (one per kind, with a count and the
    first line numbers), never a repair."""
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
        bad: dict[str, _BadLines] = {}  # by kind: a finding code, or "blank"

        def blank(first: int, count: int, bad: dict[str, _BadLines] = bad, artifact: str = logical_name) -> None:
            kind = bad.get("blank")
            if kind is None:
                message = f"{artifact} line {first}: blank (a delivery line is one JSON object)"
                kind = bad["blank"] = _BadLines(FindingCode.INVALID_JSON_LINE, message)
            kind.add(first, count)

        decoded_bad = 0
        for number, line in reader.lines(logical_name, on_blank=blank):
            try:
                record = decode(line, logical_name, number)
            except (JsonlParsingError, DeliveryPropertyDecodingError) as exc:
                code = FindingCode.named(str(exc.details.get("findingCode", FindingCode.INVALID_JSON_LINE.value)))
                kind = bad.get(code.value)
                if kind is None:
                    kind = bad[code.value] = _BadLines(code, exc.message)
                kind.add(number)
                decoded_bad += 1
                if decoded_bad >= MAX_DECODED_BAD_LINES:
                    break  # the reader hashes the rest when the gate ends (``verify_remaining``)
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
        stopped = decoded_bad >= MAX_DECODED_BAD_LINES
        for kind in sorted(bad.values(), key=lambda kind: kind.lines[0]):
            out.add(
                kind.code,
                kind.finding_message(logical_name, stopped),
                artifact=logical_name,
                location=line_location(kind.lines[0]),
            )
        clean = clean and not bad and reader.complete(logical_name)  # a line bound or a failed read cut it short
    content.relationships = relationships
    if clean and content.framework is None:
        out.add(FindingCode.IDENTITY_MISMATCH, "no StandardsFramework node in the package", artifact="nodes")
    return DecodedDelivery(content, clean)
