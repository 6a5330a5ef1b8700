"""Reads each declared artifact of a package once, verifying its size and SHA-256 on the way."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

import ijson

from kgfegmcp.models import file_digest
from kgfegmcp.packages.collector import FindingCollector
from kgfegmcp.packages.decoder import iter_physical_lines
from kgfegmcp.packages.finding_codes import FindingCode
from kgfegmcp.packages.manifest import PackageManifest

_T = TypeVar("_T")

#: What reading an artifact may find: bytes that differ from the manifest, or a JSON document that is not.
ARTIFACT_READING_CODES: tuple[FindingCode, ...] = (FindingCode.CHECKSUM_MISMATCH, FindingCode.INVALID_ENCODING)


class ArtifactReader:
    """Reads each declared, present artifact once, verifying size and SHA-256 on the way."""

    def __init__(self, package_dir: Path, manifest: PackageManifest, present: set[str], out: FindingCollector):
        self._dir = package_dir
        self._manifest = manifest
        self._present = present
        self._out = out.restricted_to(ARTIFACT_READING_CODES, "ArtifactReader")
        self._read: set[str] = set()

    def available(self, logical_name: str) -> bool:
        entry = self._manifest.artifact(logical_name)
        return entry is not None and entry.path in self._present

    def verify_remaining(self) -> None:
        """Hash every available artifact no check has read yet."""
        for entry in self._manifest.all_artifacts():
            if entry.logical_name not in self._read and self.available(entry.logical_name):
                self._hash(entry.logical_name)

    def _hash(self, logical_name: str) -> None:
        """Verify an artifact without holding it in memory."""
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        size, digest = file_digest(self._dir / entry.path)
        self._verify(logical_name, digest, size)

    def _verify(self, logical_name: str, digest: str, size: int) -> None:
        self._read.add(logical_name)
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        if digest != entry.sha256 or size != entry.bytes:
            self._out.add(
                FindingCode.CHECKSUM_MISMATCH,
                f"bytes differ from the manifest (declared {entry.bytes} bytes, found {size})",
                artifact=logical_name,
                location=entry.path,
            )

    def lines(self, logical_name: str) -> Iterator[tuple[int, bytes]]:
        """Stream lines of a JSONL artifact; the checksum is verified when the stream ends."""
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        with (self._dir / entry.path).open("rb") as handle:
            stream = _HashingStream(handle)
            yield from iter_physical_lines(stream)
        self._verify(logical_name, stream.hasher.hexdigest(), stream.size)

    def document(self, logical_name: str) -> Any:
        """Read, verify and parse a JSON artifact; ``None`` (with a finding) when unparsable."""
        data = self.raw(logical_name)
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._out.add(
                FindingCode.INVALID_ENCODING,
                f"not a UTF-8 JSON document ({type(exc).__name__})",
                artifact=logical_name,
            )
            return None

    def streamed_document(
        self,
        logical_name: str,
        member: str,
        on_entry: Callable[[str | None, Any], None],
        *,
        whole: frozenset[str] = frozenset(),
    ) -> StreamedDocument | None:
        """Parse a JSON artifact without holding it; ``None`` (with a finding) when the bytes are not JSON.

        A first pass reads the top level: whether it is an object, its scalar members, the kind of
        ``member`` and how often it occurs. When ``member`` occurs once, as an object or an array,
        a second pass hands it to ``on_entry`` entry by entry: ``(key, value)`` of an object,
        ``(None, element)`` of an array. Both passes run in ijson's C parser and verify the bytes.
        Members named in ``whole`` (small ones, such as the bundle's framework) are kept whole.
        """
        document = self._parsed(
            logical_name, lambda stream: _top_level(ijson.basic_parse(stream, use_float=True), member, whole)
        )
        if document is None or document.member_count != 1 or document.member_kind not in ("object", "array"):
            return document

        def feed(stream: _HashingStream) -> bool:
            if document.member_kind == "object":
                for key, value in ijson.kvitems(stream, member, use_float=True):
                    on_entry(key, value)
            else:
                for value in ijson.items(stream, f"{member}.item", use_float=True):
                    on_entry(None, value)
            return True

        return document if self._parsed(logical_name, feed) else None

    def _parsed(self, logical_name: str, parse: Callable[[_HashingStream], _T]) -> _T | None:
        """``parse`` over the artifact's bytes (all of them hashed and verified), or ``None`` with a finding."""
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        result: _T | None = None
        with (self._dir / entry.path).open("rb") as handle:
            stream = _HashingStream(handle)
            try:
                result = parse(stream)
            except (ijson.JSONError, UnicodeDecodeError) as exc:
                self._out.add(
                    FindingCode.INVALID_ENCODING,
                    f"not a UTF-8 JSON document ({type(exc).__name__})",
                    artifact=logical_name,
                )
            while stream.read(1 << 20):  # the checksum covers every byte, parsed or not
                pass
        self._verify(logical_name, stream.hasher.hexdigest(), stream.size)
        return result

    def raw(self, logical_name: str) -> bytes:
        """Read and verify an artifact's bytes."""
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        data = (self._dir / entry.path).read_bytes()
        self._verify(logical_name, hashlib.sha256(data).hexdigest(), len(data))
        return data


@dataclass(slots=True)
class StreamedDocument:
    """The top level of a JSON document: whether it is an object, its scalar members (a member that
    is an object or array is kept as ``NOT_SCALAR`` unless it was asked for whole), and the kind and
    count of the streamed member."""

    is_object: bool
    members: dict[str, Any] = field(default_factory=dict)
    member_kind: str | None = None
    member_count: int = 0


#: Stands for a top-level member that is an object or an array: it equals no scalar.
NOT_SCALAR = object()


class _HashingStream:
    """A binary reader that hashes and counts every byte it hands on."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self.hasher = hashlib.sha256()
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self._handle.read(size)
        self.hasher.update(chunk)
        self.size += len(chunk)
        return chunk


_OPENING = {"start_map": "object", "start_array": "array"}
_CLOSING = frozenset({"end_map", "end_array"})


def _top_level(events: Iterator[tuple[str, Any]], member: str, whole: frozenset[str] = frozenset()) -> StreamedDocument:
    """Read the top level of a document from its parse events, skipping everything deeper (except
    the members named in ``whole``, which are built)."""
    events = iter(events)
    event, value = next(events, ("end_map", None))
    document = StreamedDocument(event == "start_map")
    depth = 1 if event in _OPENING else 0
    key: str | None = None
    building: tuple[str, ijson.ObjectBuilder] | None = None
    for event, value in events:
        if building is not None:
            building[1].event(event, value)
        if depth == 1 and event == "map_key":
            key = value
            continue
        if depth == 1 and document.is_object and key is not None:
            kind = _OPENING.get(event, "scalar")
            if key == member:
                document.member_count += 1
                document.member_kind = kind
            document.members[key] = value if kind == "scalar" else NOT_SCALAR
            if kind != "scalar" and key in whole:
                building = (key, ijson.ObjectBuilder())
                building[1].event(event, value)
            key = None
        if event in _OPENING:
            depth += 1
        elif event in _CLOSING:
            depth -= 1
            if depth == 1 and building is not None:
                document.members[building[0]] = building[1].value
                building = None
    return document
