"""Delivery schema 1.1 decoder: wire strings in, typed records out, nothing repaired.

The decoder is the only place wire encodings are interpreted. It checks the envelope and the
known property encodings; identifiers, endpoints and topology are later validation stages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, Protocol

from kgfegmcp.core.errors import DeliveryPropertyDecodingError, JsonlParsingError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.package_files import MAX_LINE_BYTES, PackageJsonError, parse_package_json
from kgfegmcp.packages.records import (
    COMPONENT,
    NODE_LABELS,
    PROPERTIES_BY_LABEL,
    RECORD_TYPE_BY_LABEL,
    RELATIONSHIP_LABELS,
    SUPPORTS,
    EntityKey,
    NodeLabel,
    NodeRecord,
    PropertyKind,
    RelationshipLabel,
    RelationshipRecord,
)

CHUNK_BYTES = 1 << 20
#: The finding code a decoding error names in ``details["findingCode"]``, one of these.
DECODING_CODES: tuple[FindingCode, ...] = (
    FindingCode.INVALID_JSON_LINE,
    FindingCode.INVALID_ENCODING,
    FindingCode.MISSING_PROPERTY,
    FindingCode.INVALID_LABEL,
)
_NODE_KEYS = frozenset({"identifier", "labels", "properties", "type"})
_RELATIONSHIP_KEYS = frozenset(
    {
        "identifier",
        "label",
        "properties",
        "source_identifier",
        "source_labels",
        "target_identifier",
        "target_labels",
        "type",
    }
)
_ENTITY_KEYS: dict[str, EntityKey] = {"caseIdentifierUUID": "caseIdentifierUUID", "identifier": "identifier"}
#: Labels as the module's own string objects, so a million records share them instead of holding copies.
_NODE_LABEL: dict[str, NodeLabel] = {label: label for label in NODE_LABELS}
_RELATIONSHIP_LABEL: dict[str, RelationshipLabel] = {label: label for label in RELATIONSHIP_LABELS}
#: Attributes whose values repeat across a package (a statement type, a grade list, a licence): decoded
#: once per distinct value and shared, which is most of what a record costs beyond its own text.
_SHARED_ATTRIBUTES = frozenset(
    {
        "statement_type",
        "normalized_statement_type",
        "grade_level",
        "in_language",
        "academic_subject",
        "jurisdiction",
        "license",
        "attribution_statement",
        "author",
        "provider",
        "tags",
        "date_created",
        "date_modified",
    }
)
_CONFIDENCE = re.compile(r"(?:0(?:\.[0-9]{1,6})?|1(?:\.0{1,6})?)")
_NEWLINE = ord("\n")
_NEWLINES = re.compile(rb"\n+")


class BinaryReader(Protocol):
    """Anything with ``read(size) -> bytes``: a binary file, or a reader that hashes what it reads."""

    def read(self, size: int = -1, /) -> bytes: ...


def iter_physical_lines(
    stream: BinaryReader,
    on_chunk: Callable[[bytes], None] | None = None,
    *,
    artifact: str = "artifact",
    max_line_bytes: int = MAX_LINE_BYTES,
    on_blank: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, line_without_newline)``; every byte also goes to ``on_chunk``.

    Reading in large chunks lets one pass both hash a file and feed its lines to the decoder.
    A final line without a trailing newline is still yielded. A line longer than ``max_line_bytes``
    raises ``jsonl_parsing_error`` (finding ``invalid_json_line``) as soon as it is that long: it is
    never held whole, so memory and time stay linear in what was read, and nothing after it is read.

    Blank lines: with ``on_blank``, each run of them is handed to it as ``(first line number, count)``,
    found in one regular-expression step, and not yielded; so a file of a gigabyte of newlines costs a few
    calls per chunk, not a billion lines. Without it, each is yielded (empty) like any other line.
    """
    remainder = b""
    line_number = 0
    while True:
        chunk = stream.read(CHUNK_BYTES)
        if not chunk:
            break
        if on_chunk is not None:
            on_chunk(chunk)
        buffer = remainder + chunk if remainder else chunk
        complete = buffer.rfind(b"\n") + 1  # the lines ending in this buffer; the rest waits for the next chunk
        position = 0
        while position < complete:
            if on_blank is not None and buffer[position] == _NEWLINE:
                run = _NEWLINES.match(buffer, position)
                assert run is not None
                on_blank(line_number + 1, run.end() - position)
                line_number += run.end() - position
                position = run.end()
                continue
            end = buffer.index(b"\n", position)
            line_number += 1
            if end - position > max_line_bytes:
                _line_too_long(artifact, line_number, max_line_bytes)
            yield line_number, buffer[position:end]
            position = end + 1
        remainder = buffer[complete:]
        if len(remainder) > max_line_bytes:
            _line_too_long(artifact, line_number + 1, max_line_bytes)
    if remainder:
        yield line_number + 1, remainder


def _line_too_long(artifact: str, line: int, max_line_bytes: int) -> NoReturn:
    _fail_line(artifact, line, f"longer than {max_line_bytes} bytes (not read further)")


def _fail_line(artifact: str, line: int, message: str) -> NoReturn:
    raise JsonlParsingError(
        f"{artifact} line {line}: {message}",
        details={"artifact": artifact, "line": line, "findingCode": FindingCode.INVALID_JSON_LINE.value},
    )


def _fail_property(
    artifact: str, line: int, message: str, finding: FindingCode = FindingCode.INVALID_ENCODING
) -> NoReturn:
    raise DeliveryPropertyDecodingError(
        f"{artifact} line {line}: {message}",
        details={"artifact": artifact, "line": line, "findingCode": finding.value},
    )


def _load_object(line: bytes, artifact: str, line_number: int) -> dict[str, Any]:
    try:
        value = parse_package_json(line)
    except PackageJsonError as exc:
        if exc.not_utf8:
            _fail_property(artifact, line_number, "bytes are not valid UTF-8")
        _fail_line(artifact, line_number, f"not one JSON value: the line {exc}")
    if not isinstance(value, dict):
        _fail_line(artifact, line_number, "a delivery record must be a JSON object")
    return value


def _decode_string(value: object, name: str, artifact: str, line: int) -> str:
    if not isinstance(value, str):
        _fail_property(artifact, line, f"property {name} must be a string, got {type(value).__name__}")
    return value


def _decode_bool(value: object, name: str, artifact: str, line: int) -> bool:
    if value == "true" and isinstance(value, str):
        return True
    if value == "false" and isinstance(value, str):
        return False
    _fail_property(artifact, line, f'property {name} must be exactly "true" or "false"')


def _decode_array(value: object, name: str, artifact: str, line: int) -> tuple[str, ...]:
    text = _decode_string(value, name, artifact, line)
    try:
        decoded = parse_package_json(text)
    except PackageJsonError:
        _fail_property(artifact, line, f"property {name} must hold a JSON array in a string")
    if not isinstance(decoded, list) or not all(isinstance(v, str) and v for v in decoded):
        _fail_property(artifact, line, f"property {name} must hold a JSON array of non-empty strings")
    if len(set(decoded)) != len(decoded):
        _fail_property(artifact, line, f"property {name} repeats a value")
    return tuple(decoded)


def _decode_confidence(value: object, artifact: str, line: int) -> float:
    text = _decode_string(value, "supportConfidence", artifact, line)
    if _CONFIDENCE.fullmatch(text) is None:
        _fail_property(artifact, line, "property supportConfidence must be a decimal between 0 and 1")
    result = float(text)
    if not math.isfinite(result):  # pragma: no cover - excluded by the pattern
        _fail_property(artifact, line, "property supportConfidence must be finite")
    return result


_DECODERS: dict[PropertyKind, Callable[[object, str, str, int], object]] = {
    "str": _decode_string,
    "bool": _decode_bool,
    "array": _decode_array,
}


def _decode_labels(value: object, artifact: str, line: int, field: str) -> NodeLabel:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        _fail_line(artifact, line, f"{field} must be a JSON array of strings")
    recognised = [_NODE_LABEL[v] for v in value if v in _NODE_LABEL]
    if len(value) != 1 or len(recognised) != 1:
        _fail_property(
            artifact,
            line,
            f"{field} must carry exactly one of {', '.join(NODE_LABELS)}; got {value!r}",
            FindingCode.INVALID_LABEL,
        )
    label: NodeLabel = recognised[0]
    return label


def _check_envelope(record: dict[str, Any], keys: frozenset[str], kind: str, artifact: str, line: int) -> None:
    if record.get("type") != kind:
        _fail_line(artifact, line, f'"type" must be "{kind}"')
    if record.keys() != keys:
        missing = sorted(keys - record.keys())
        extra = sorted(record.keys() - keys)
        _fail_line(artifact, line, f"{kind} envelope keys differ (missing {missing}, unexpected {extra})")
    if not isinstance(record["identifier"], str) or not record["identifier"]:
        _fail_line(artifact, line, "identifier must be a non-empty string")
    if not isinstance(record["properties"], dict):
        _fail_line(artifact, line, "properties must be a JSON object")


def decode_node(line: bytes, artifact: str, line_number: int, shared: dict[object, object] | None = None) -> NodeRecord:
    """Decode one node line; raise ``jsonl_parsing_error`` or ``delivery_property_decoding_error``.

    ``shared`` (kept across the lines of one package) makes equal repeated values one object.
    """
    record = _load_object(line, artifact, line_number)
    _check_envelope(record, _NODE_KEYS, "node", artifact, line_number)
    label = _decode_labels(record["labels"], artifact, line_number, "labels")
    properties: dict[str, Any] = record["properties"]
    values: dict[str, object] = {"identifier": record["identifier"]}
    for attribute, wire, kind, required in PROPERTIES_BY_LABEL[label]:
        raw = properties.get(wire)
        if raw is None:
            if wire in properties:
                _fail_property(artifact, line_number, f"property {wire} must not be null")
            if required:
                _fail_property(artifact, line_number, f"{label} requires property {wire}", FindingCode.MISSING_PROPERTY)
            continue
        value = _DECODERS[kind](raw, wire, artifact, line_number)
        if shared is not None and attribute in _SHARED_ATTRIBUTES:
            value = shared.setdefault(value, value)
        values[attribute] = value
    if values.get("case_identifier_uuid") == values["identifier"]:
        values["case_identifier_uuid"] = values["identifier"]
    return RECORD_TYPE_BY_LABEL[label](**values)  # type: ignore[arg-type]


def decode_relationship(line: bytes, artifact: str, line_number: int) -> RelationshipRecord:
    """Decode one relationship line; wire rules only, endpoints are checked later."""
    record = _load_object(line, artifact, line_number)
    _check_envelope(record, _RELATIONSHIP_KEYS, "relationship", artifact, line_number)
    label = _RELATIONSHIP_LABEL.get(record["label"]) if isinstance(record["label"], str) else None
    if label is None:
        _fail_property(
            artifact, line_number, f"unknown relationship label {record['label']!r}", FindingCode.INVALID_LABEL
        )
    for field in ("source_identifier", "target_identifier"):
        if not isinstance(record[field], str) or not record[field]:
            _fail_line(artifact, line_number, f"{field} must be a non-empty string")
    source_label = _decode_labels(record["source_labels"], artifact, line_number, "source_labels")
    target_label = _decode_labels(record["target_labels"], artifact, line_number, "target_labels")
    properties: dict[str, Any] = record["properties"]
    relationship_type = properties.get("relationshipType")
    if relationship_type != label:
        _fail_property(
            artifact,
            line_number,
            f"relationshipType {relationship_type!r} differs from label {label!r}",
            FindingCode.INVALID_LABEL,
        )
    keys: list[EntityKey] = []
    for wire in ("sourceEntityKey", "targetEntityKey"):
        if wire not in properties:
            _fail_property(
                artifact, line_number, f"relationship requires property {wire}", FindingCode.MISSING_PROPERTY
            )
        value = _decode_string(properties[wire], wire, artifact, line_number)
        if value not in _ENTITY_KEYS:
            _fail_property(artifact, line_number, f"{wire} must be caseIdentifierUUID or identifier")
        keys.append(_ENTITY_KEYS[value])
    confidence: float | None = None
    if "supportConfidence" in properties:
        confidence = _decode_confidence(properties["supportConfidence"], artifact, line_number)
    elif label == SUPPORTS:
        _fail_property(
            artifact, line_number, "supports requires property supportConfidence", FindingCode.MISSING_PROPERTY
        )
    unresolved: str | None = None
    # Delivery 1.2 (the supplied shape) names the status ``resolutionStatus``; a record saying both is refused.
    named = [wire for wire in ("unresolvedStatus", "resolutionStatus") if wire in properties]
    if len(named) > 1:
        _fail_property(artifact, line_number, "unresolvedStatus and resolutionStatus name one status twice")
    if named:
        unresolved = _decode_string(properties[named[0]], named[0], artifact, line_number)
    return RelationshipRecord(
        identifier=record["identifier"],
        label=label,
        source_identifier=record["source_identifier"],
        target_identifier=record["target_identifier"],
        source_label=source_label,
        target_label=target_label,
        source_entity_key=keys[0],
        target_entity_key=keys[1],
        support_confidence=confidence,
        unresolved_status=unresolved,
    )


def iter_nodes(stream: BinaryReader, artifact: str) -> Iterator[NodeRecord]:
    """Stream typed nodes; the first bad line raises."""
    for line_number, line in iter_physical_lines(stream, artifact=artifact):
        yield decode_node(line, artifact, line_number)


def iter_relationships(stream: BinaryReader, artifact: str) -> Iterator[RelationshipRecord]:
    """Stream typed relationships; the first bad line raises."""
    for line_number, line in iter_physical_lines(stream, artifact=artifact):
        yield decode_relationship(line, artifact, line_number)


__all__ = [
    "COMPONENT",
    "decode_node",
    "decode_relationship",
    "iter_nodes",
    "iter_physical_lines",
    "iter_relationships",
]
