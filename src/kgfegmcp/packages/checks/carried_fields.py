"""Which fields an entity carries in each artifact, and where two copies of them first differ.

A package states each entity more than once: the delivery nodes (what the graph and search serve),
the framework document, the item lines and the bundle (what resources and bulk readers serve), the
component bundle, the dedup groups, and the provenance documents with their 64 parts. A checksum
binds bytes to a manifest that anyone can re-seal, so the checks compare the copies themselves.
These helpers keep that comparison cheap and its memory bounded: copies are compared with the
decoded nodes held anyway, and what two streamed copies share beyond the nodes is kept as digests.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from collections.abc import Mapping
from typing import Any, Final

from kgfegmcp.core.models import canonical_bytes
from kgfegmcp.packages.records import ITEM, PROPERTIES_BY_LABEL, NodeRecord

#: Every member a node's typed copy (``encoder.typed_fields``) may hold, by node label.
TYPED_MEMBERS: Final[dict[str, frozenset[str]]] = {
    label: frozenset({"identifier", *(wire for _, wire, _, _ in properties)})
    for label, properties in PROPERTIES_BY_LABEL.items()
}
_DIGEST: Final = 16
_ABSENT: Final = object()


def typed_difference(node: NodeRecord, record: Mapping[str, Any], *, exact: bool) -> str | None:
    """The first member in which ``record``, a typed copy of ``node``, differs from it; ``None`` when equal.

    Each typed field must be present exactly when the node has it, with the same value and JSON type
    (``true`` is not ``1``). With ``exact`` the copy may hold nothing else (the framework and component
    copies are the typed fields alone); items also carry details that the nodes do not (see
    :func:`item_details`).
    """
    if record.get("identifier", _ABSENT) != node.identifier:
        return "identifier"
    for attribute, wire, kind, _required in PROPERTIES_BY_LABEL[node.label]:
        value = getattr(node, attribute)
        found = record.get(wire, _ABSENT)
        if value is None:
            if found is not _ABSENT:
                return wire
        elif kind == "array":
            if type(found) is not list or found != list(value):
                return wire
        elif kind == "bool":
            if found is not value:
                return wire
        elif type(found) is not str or found != value:
            return wire
    if exact:
        typed = TYPED_MEMBERS[node.label]
        return next((member for member in sorted(record) if member not in typed), None)
    return None


def record_digest(record: Any) -> bytes:
    """A 16-byte digest of a record's canonical JSON: equal digests, equal records."""
    try:
        return hashlib.blake2b(canonical_bytes(record), digest_size=_DIGEST).digest()
    except (RecursionError, ValueError):  # nested too deep to serialise: equal to nothing, not even itself
        return _unequal()


def parsed_digest(record: Any) -> bytes:
    """A 16-byte digest of a parsed JSON value as parsed, members in document order: about three times
    cheaper than :func:`record_digest`, and equal for two copies written alike (both parsers keep the
    order; marshal version 2 writes values only, never object identity). Copies written in another
    order differ here though equal, so a difference is confirmed with :func:`record_digest`."""
    try:
        return hashlib.blake2b(marshal.dumps(record, 2), digest_size=_DIGEST).digest()
    except ValueError:  # nested too deep to marshal
        return _unequal()


def _unequal() -> bytes:
    return b"\0" + os.urandom(_DIGEST - 1)


def item_details(record: Mapping[str, Any]) -> dict[str, Any]:
    """What an item copy carries beyond the typed fields (``parentIdentifiers``, ``sourceDetails``, ...)."""
    typed = TYPED_MEMBERS[ITEM]
    return {key: value for key, value in record.items() if key not in typed}


class ItemLineDigests:
    """A 16-byte digest of each item line, by position: what the bundle's items are compared with.

    The item lines are read first and the bundle is streamed after them. A bundle item with its line's
    digest (:func:`parsed_digest`) carries exactly what the line does (whose fields were compared with
    the nodes); 16 bytes per item, not the lines, bound the memory of that comparison.
    """

    def __init__(self, items: int) -> None:
        self._digests = bytearray(items * _DIGEST)
        self._recorded = 0

    def record(self, position: int, record: Mapping[str, Any]) -> None:
        """Keep the digest of the item line at ``position`` (lines beyond the delivered items are ignored)."""
        if (position + 1) * _DIGEST <= len(self._digests):
            self._digests[position * _DIGEST : (position + 1) * _DIGEST] = parsed_digest(record)
            self._recorded = max(self._recorded, position + 1)

    def same(self, position: int, record: Mapping[str, Any]) -> bool | None:
        """Whether ``record`` is written as the item line at ``position``; ``None`` when no line was kept there."""
        if position >= self._recorded:
            return None
        return self._digests[position * _DIGEST : (position + 1) * _DIGEST] == parsed_digest(record)


def collapsed(text: str) -> str:
    """``text`` with each run of whitespace made one space and the ends trimmed.

    A provenance ``sourceText`` quotes the source verbatim; the node's description is that text with
    its line wraps undone, so the two are compared in this form.
    """
    return " ".join(text.split())


def first_difference(left: Any, right: Any, path: str = "", depth: int = 0) -> str | None:
    """The path (``locator.recordKey``, ``dataset[2]``) of the first place two JSON values differ.

    Walks at most a few levels, without comparing whole subtrees in one step, so a document nested
    deeper than Python's recursion limit is named by its outer path rather than raising.
    """
    if depth > _MAX_DEPTH:
        return path or "(the entry)"
    if isinstance(left, dict) and isinstance(right, dict):
        for key in sorted(left.keys() | right.keys()):
            where = f"{path}.{key}" if path else key
            if key not in left or key not in right:
                return where
            found = first_difference(left[key], right[key], where, depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return path or "(the entry)"
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            found = first_difference(a, b, f"{path}[{index}]", depth + 1)
            if found is not None:
                return found
        return None
    if type(left) is not type(right) or left != right:
        return path or "(the entry)"
    return None


_MAX_DEPTH: Final = 16
