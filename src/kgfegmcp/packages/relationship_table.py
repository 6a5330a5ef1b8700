"""RelationshipTable: a package's relationships as columns, one record materialised only when asked for.

A package may hold millions of relationships. As one slotted object each (with its id and both
endpoint ids) they cost about 200 bytes apiece; as columns (ids in one UTF-8 blob, endpoints as
node positions, label, endpoint labels and keys packed in one byte) about 30 bytes plus the id.
The columns are plain ``array``/``bytes`` values, so the derived-index cache stores and reloads
them without touching a single record.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from kgfegmcp.packages.records import (
    NODE_LABELS,
    RELATIONSHIP_LABELS,
    DecodedPackage,
    RelationshipLabel,
    RelationshipRecord,
)

_KEYS = ("caseIdentifierUUID", "identifier")
_LABEL_CODE = {label: code for code, label in enumerate(RELATIONSHIP_LABELS)}
_NODE_CODE = {label: code for code, label in enumerate(NODE_LABELS)}
_KEY_CODE = {key: code for code, key in enumerate(_KEYS)}
#: Every value of the packed byte, unpacked once: (label, source label, target label, source key, target key).
_SHAPES = {
    label | source << 2 | target << 4 | source_key << 6 | target_key << 7: (
        RELATIONSHIP_LABELS[label],
        NODE_LABELS[source],
        NODE_LABELS[target],
        _KEYS[source_key],
        _KEYS[target_key],
    )
    for label in range(len(RELATIONSHIP_LABELS))
    for source in range(len(NODE_LABELS))
    for target in range(len(NODE_LABELS))
    for source_key in range(2)
    for target_key in range(2)
}
_NO_CONFIDENCE = math.nan


def _shape(record: RelationshipRecord) -> int:
    return (
        _LABEL_CODE[record.label]
        | _NODE_CODE[record.source_label] << 2
        | _NODE_CODE[record.target_label] << 4
        | _KEY_CODE[record.source_entity_key] << 6
        | _KEY_CODE[record.target_entity_key] << 7
    )


@dataclass(frozen=True, slots=True)
class RelationshipColumns:
    """The stored form: every field a plain array, so it round-trips as bytes."""

    ids: bytes  # every id's UTF-8 bytes, back to back, file order
    id_ends: array[int]  # 'Q': where each id ends in ``ids``
    id_order: array[int]  # 'I': positions sorted by id bytes (lookup by id is a bisection)
    shapes: bytes  # label, endpoint labels and endpoint keys packed in one byte
    sources: array[int]  # 'I': source node positions
    targets: array[int]  # 'I': target node positions
    confidence: array[float]  # 'd': supportConfidence, NaN when absent
    unresolved: dict[int, str]  # unresolvedStatus of the few relationships that carry one

    def to_parts(self) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, dict[int, str]]:
        """Bytes only (for marshal)."""
        return (
            self.ids,
            self.id_ends.tobytes(),
            self.id_order.tobytes(),
            self.shapes,
            self.sources.tobytes(),
            self.targets.tobytes(),
            self.confidence.tobytes(),
            dict(self.unresolved),
        )

    @classmethod
    def from_parts(cls, parts: Sequence[object]) -> RelationshipColumns:
        """The columns :meth:`to_parts` gave; ``ValueError`` when the parts do not fit together."""
        ids, ends, order, shapes, sources, targets, confidence, unresolved = parts
        if not all(isinstance(p, bytes) for p in (ids, ends, order, shapes, sources, targets, confidence)):
            raise ValueError("relationship columns must be bytes")
        if not isinstance(unresolved, dict):
            raise ValueError("unresolved statuses must be a mapping")
        columns = cls(
            ids,  # type: ignore[arg-type]
            _array("Q", ends),
            _array("I", order),
            shapes,  # type: ignore[arg-type]
            _array("I", sources),
            _array("I", targets),
            _floats(confidence),
            unresolved,
        )
        count = len(columns.shapes)
        lengths = {len(columns.id_ends), len(columns.id_order), len(columns.sources), len(columns.targets)}
        if lengths | {len(columns.confidence)} != {count} or (count and columns.id_ends[-1] != len(ids)):  # type: ignore[arg-type]
            raise ValueError("relationship columns differ in length")
        if any(shape not in _SHAPES for shape in set(columns.shapes)):
            raise ValueError("unknown relationship shape")
        return columns


def _array(typecode: str, data: object) -> array[int]:
    values = array(typecode)
    values.frombytes(data)  # type: ignore[arg-type]
    return values


def _floats(data: object) -> array[float]:
    values = array("d")
    values.frombytes(data)  # type: ignore[arg-type]
    return values


class RelationshipTable(Sequence[RelationshipRecord]):
    """Every relationship of one package, file order; ``table[i]`` is an equal :class:`RelationshipRecord`.

    Endpoints are node positions, resolved to outer ids through ``node_ids`` (position → id).
    """

    __slots__ = ("_by_label", "_columns", "_node_ids")

    def __init__(self, columns: RelationshipColumns, node_ids: Sequence[str]) -> None:
        if columns.sources and max(max(columns.sources), max(columns.targets)) >= len(node_ids):
            raise ValueError("a relationship endpoint lies outside the package's nodes")
        self._columns = columns
        self._node_ids = node_ids
        self._by_label: dict[str, array[int]] | None = None

    @classmethod
    def of(cls, content: DecodedPackage) -> RelationshipTable:
        """The table of a complete package's relationships: the one it holds (decoded from the cache),
        or one built from its decoded records."""
        if isinstance(content.relationships, RelationshipTable):
            return content.relationships
        return cls.from_records(content.relationships, content.node_ids())

    @classmethod
    def from_records(cls, relationships: Iterable[RelationshipRecord], node_ids: Sequence[str]) -> RelationshipTable:
        """The table of ``relationships``, whose endpoints must all be among ``node_ids`` (by position)."""
        position = {identifier: index for index, identifier in enumerate(node_ids)}
        ids = bytearray()
        ends, sources, targets, confidence = array("Q"), array("I"), array("I"), array("d")
        shapes = bytearray()
        unresolved: dict[int, str] = {}
        keys: list[bytes] = []
        for index, record in enumerate(relationships):
            encoded = record.identifier.encode("utf-8")
            keys.append(encoded)
            ids += encoded
            ends.append(len(ids))
            shapes.append(_shape(record))
            sources.append(position[record.source_identifier])
            targets.append(position[record.target_identifier])
            confidence.append(_NO_CONFIDENCE if record.support_confidence is None else record.support_confidence)
            if record.unresolved_status is not None:
                unresolved[index] = record.unresolved_status
        order = array("I", sorted(range(len(keys)), key=keys.__getitem__))
        columns = RelationshipColumns(bytes(ids), ends, order, bytes(shapes), sources, targets, confidence, unresolved)
        return cls(columns, node_ids)

    @property
    def columns(self) -> RelationshipColumns:
        """The stored form."""
        return self._columns

    def __len__(self) -> int:
        return len(self._columns.shapes)

    @overload
    def __getitem__(self, index: int) -> RelationshipRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[RelationshipRecord]: ...
    def __getitem__(self, index: int | slice) -> RelationshipRecord | list[RelationshipRecord]:
        if isinstance(index, slice):
            return [self._record(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("relationship position out of range")
        return self._record(index)

    def __iter__(self) -> Iterator[RelationshipRecord]:
        return (self._record(i) for i in range(len(self)))

    def _record(self, index: int) -> RelationshipRecord:
        c = self._columns
        label, source_label, target_label, source_key, target_key = _SHAPES[c.shapes[index]]
        confidence = c.confidence[index]
        return RelationshipRecord(
            identifier=self.identifier(index),
            label=label,
            source_identifier=self._node_ids[c.sources[index]],
            target_identifier=self._node_ids[c.targets[index]],
            source_label=source_label,
            target_label=target_label,
            source_entity_key=source_key,  # type: ignore[arg-type]
            target_entity_key=target_key,  # type: ignore[arg-type]
            support_confidence=None if confidence != confidence else confidence,
            unresolved_status=c.unresolved.get(index),
        )

    def identifier(self, index: int) -> str:
        """The id of the relationship at ``index``, without building its record."""
        return self._id_bytes(index).decode("utf-8")

    def _id_bytes(self, index: int) -> bytes:
        c = self._columns
        return c.ids[c.id_ends[index - 1] if index else 0 : c.id_ends[index]]

    def position(self, identifier: str) -> int | None:
        """Where the relationship ``identifier`` is, or ``None``."""
        key = identifier.encode("utf-8", "surrogatepass")
        order = self._columns.id_order
        found = bisect_left(order, key, key=self._id_bytes)
        if found < len(order) and self._id_bytes(order[found]) == key:
            return order[found]
        return None

    def endpoints(self) -> tuple[array[int], array[int]]:
        """Source and target node positions of every relationship, file order."""
        return self._columns.sources, self._columns.targets

    def label_at(self, index: int) -> RelationshipLabel:
        """The label of the relationship at ``index``, without building its record."""
        return RELATIONSHIP_LABELS[self._columns.shapes[index] & 3]

    def source_at(self, index: int) -> int:
        """The source node position of the relationship at ``index``."""
        return self._columns.sources[index]

    def target_at(self, index: int) -> int:
        """The target node position of the relationship at ``index``."""
        return self._columns.targets[index]

    def positions_by_label(self) -> dict[str, array[int]]:
        """Relationship positions of each label, file order (computed once; callers must not change them)."""
        if self._by_label is None:
            found: dict[str, array[int]] = {label: array("I") for label in RELATIONSHIP_LABELS}
            by_code = [found[label] for label in RELATIONSHIP_LABELS]
            for index, shape in enumerate(self._columns.shapes):
                by_code[shape & 3].append(index)
            self._by_label = found
        return self._by_label
