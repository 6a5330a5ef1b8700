"""Reads each declared artifact of a package once, verifying its size and SHA-256 on the way.

Every artifact is opened through :class:`~kgfegmcp.core.package_files.PackageFile`: a regular
file, never blocking, whose size is compared with the manifest before a byte of it is read. An
artifact that cannot be opened as declared gets one finding and is then unavailable, so no check
reads it and its problem is reported once, not as a cascade of consequences.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import ijson

from kgfegmcp.core.errors import JsonlParsingError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.package_files import (
    MAX_JSON_DEPTH,
    PackageFile,
    PackageFileError,
    PackageJsonError,
    parse_package_json,
    shown_key,
)
from kgfegmcp.packages.collector import FindingCollector, line_location
from kgfegmcp.packages.decoder import iter_physical_lines
from kgfegmcp.packages.manifest import ArtifactEntry, PackageManifest

_T = TypeVar("_T")

#: What reading an artifact may find: a file that is not what the manifest declares (missing, not a
#: regular file, unreadable, other bytes), a JSON document that is not one, or a line over the bound.
ARTIFACT_READING_CODES: tuple[FindingCode, ...] = (
    FindingCode.CHECKSUM_MISMATCH,
    FindingCode.INVALID_ENCODING,
    FindingCode.INVALID_JSON_LINE,
    FindingCode.MISSING_ARTIFACT,
    FindingCode.UNSAFE_PATH,
    FindingCode.UNREADABLE_FILE,
)


class _Refused(Exception):
    """A streamed document is not one strict JSON document (a repeated key, or nested too deeply)."""


class ArtifactReader:
    """Reads each declared, present artifact once, verifying size and SHA-256 on the way."""

    def __init__(self, package_dir: Path, manifest: PackageManifest, present: set[str], out: FindingCollector):
        self._dir = package_dir
        self._manifest = manifest
        self._present = present
        self._out = out.restricted_to(ARTIFACT_READING_CODES, "ArtifactReader")
        self._read: set[str] = set()
        self._opened: set[str] = set()
        self._refused: set[str] = set()
        self._cut_short: set[str] = set()

    def available(self, logical_name: str) -> bool:
        """Declared, present, and a regular file of its declared size (opened once to see)."""
        entry = self._manifest.artifact(logical_name)
        if entry is None or entry.path not in self._present or logical_name in self._refused:
            return False
        if logical_name not in self._opened:
            handle = self._open(entry)
            if handle is None:
                return False
            handle.close()
        return True

    def complete(self, logical_name: str) -> bool:
        """Whether every line of an available artifact was handed on (no line bound or read failure cut it)."""
        return logical_name not in self._cut_short and logical_name not in self._refused

    def verify_remaining(self) -> None:
        """Hash every available artifact no check has read yet."""
        for entry in self._manifest.all_artifacts():
            if entry.logical_name not in self._read and self.available(entry.logical_name):
                self._hash(entry)

    def _open(self, entry: ArtifactEntry) -> PackageFile | None:
        """The artifact opened as its manifest declares it, or ``None`` with the one finding that says why not."""
        try:
            handle = PackageFile.open(self._dir, entry.path, expected_bytes=entry.bytes)
        except PackageFileError as exc:
            self._refused.add(entry.logical_name)
            self._out.add(exc.code, f"the file {exc.reason}", artifact=entry.logical_name, location=entry.path)
            return None
        self._opened.add(entry.logical_name)
        return handle

    def _entry(self, logical_name: str) -> ArtifactEntry:
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        return entry

    def _cut(self, entry: ArtifactEntry, exc: PackageFileError) -> None:
        """Reading stopped before the last byte: the finding, and the artifact counts as incomplete."""
        self._cut_short.add(entry.logical_name)
        self._out.add(exc.code, f"the file {exc.reason}", artifact=entry.logical_name, location=entry.path)

    def _hash(self, entry: ArtifactEntry) -> None:
        """Verify an artifact without holding it in memory (a parse that reads nothing: every byte is hashed)."""
        handle = self._open(entry)
        if handle is not None:
            with handle:
                self._parsed(entry, handle, lambda _stream: True)

    def _verify(self, entry: ArtifactEntry, digest: str, size: int) -> None:
        self._read.add(entry.logical_name)
        if digest != entry.sha256 or size != entry.bytes:
            self._out.add(
                FindingCode.CHECKSUM_MISMATCH,
                f"bytes differ from the manifest (declared {entry.bytes} bytes, found {size})",
                artifact=entry.logical_name,
                location=entry.path,
            )

    def lines(
        self, logical_name: str, on_blank: Callable[[int, int], None] | None = None
    ) -> Iterator[tuple[int, bytes]]:
        """Stream lines of a JSONL artifact; the checksum is verified when the stream ends.

        A line over the line bound, or a read that fails, is a finding and ends the stream early:
        :meth:`complete` then says so. With ``on_blank``, runs of blank lines go to it instead
        (``iter_physical_lines``).
        """
        entry = self._entry(logical_name)
        handle = self._open(entry)
        if handle is None:
            return
        with handle:
            stream = _HashingStream(handle)
            try:
                yield from iter_physical_lines(stream, artifact=logical_name, on_blank=on_blank)
            except JsonlParsingError as exc:
                self._cut_short.add(logical_name)
                line = exc.details.get("line")
                self._out.add(
                    FindingCode.INVALID_JSON_LINE,
                    exc.message,
                    artifact=logical_name,
                    location=line_location(line) if isinstance(line, int) else entry.path,
                )
                return
            except PackageFileError as exc:
                self._cut(entry, exc)
                return
        self._verify(entry, stream.hasher.hexdigest(), stream.size)

    def raw_chunks(self, logical_name: str) -> Iterator[bytes]:
        """An available artifact's bytes once more, a chunk at a time, for a check that scans them as bytes.

        Unverified here and silent on failure: the one read that verifies the artifact reports what is
        wrong with it (other bytes, a failed read), so a scan never reports it twice.
        """
        entry = self._entry(logical_name)
        try:
            with PackageFile.open(self._dir, entry.path, expected_bytes=entry.bytes) as handle:
                while chunk := handle.read(1 << 20):
                    yield chunk
        except PackageFileError:
            return

    def document(self, logical_name: str) -> Any:
        """Read, verify and parse a JSON artifact; ``None`` (with a finding) when unreadable or not strict JSON."""
        entry = self._entry(logical_name)
        data = self._whole(entry)
        if data is None:
            return None
        try:
            return parse_package_json(data)
        except PackageJsonError as exc:
            self._out.add(FindingCode.INVALID_ENCODING, f"the document {exc}", artifact=logical_name)
            return None

    def streamed_document(
        self,
        logical_name: str,
        streams: Mapping[str, Callable[[str | None, Any], None]],
        *,
        whole: frozenset[str] = frozenset(),
    ) -> StreamedDocument | None:
        """Parse a JSON artifact without holding it; ``None`` (with a finding) when the bytes are not JSON.

        A first pass reads the top level: whether it is an object, its scalar members, and the kind
        and count of each member named in ``streams``; it also refuses a document nested deeper than
        the bound, or with an object that repeats a key (except a streamed member at the top level, and
        the keys of a streamed object itself: whoever reads them counts those repeats). Then each
        streamed member that occurs once, as an object or an array, is handed to its callback entry by
        entry in one more pass over the same opened file: ``(key, value)`` of an object, ``(None,
        element)`` of an array. Every pass runs in ijson's parser and verifies the bytes, so a document
        with two large members (the bundle's items and hasChild) is read in one top-level pass, not two.
        Members named in ``whole`` (small ones, such as the bundle's framework) are kept whole.
        """
        entry = self._entry(logical_name)
        handle = self._open(entry)
        if handle is None:
            return None
        names = frozenset(streams)
        with handle:
            document = self._parsed(
                entry, handle, lambda stream: _top_level(ijson.basic_parse(stream, use_float=True), names, whole)
            )
            if document is None:
                return None
            for member, on_entry in streams.items():
                kind = document.kinds.get(member)
                if document.counts.get(member) != 1 or kind not in ("object", "array"):
                    continue
                try:
                    handle.rewind()
                except PackageFileError as exc:
                    self._cut(entry, exc)
                    return None
                if not self._parsed(entry, handle, partial(_feed, member=member, kind=kind, on_entry=on_entry)):
                    return None
            return document

    def _parsed(self, entry: ArtifactEntry, handle: PackageFile, parse: Callable[[_HashingStream], _T]) -> _T | None:
        """``parse`` over the artifact's bytes (all of them hashed and verified), or ``None`` with a finding."""
        stream = _HashingStream(handle)
        result: _T | None = None
        try:
            try:
                result = parse(stream)
            except (ijson.JSONError, UnicodeDecodeError) as exc:
                self._out.add(
                    FindingCode.INVALID_ENCODING,
                    f"not a UTF-8 JSON document ({type(exc).__name__})",
                    artifact=entry.logical_name,
                )
            except _Refused as exc:
                self._out.add(FindingCode.INVALID_ENCODING, f"the document {exc}", artifact=entry.logical_name)
            while stream.read(1 << 20):  # the checksum covers every byte, parsed or not
                pass
        except PackageFileError as exc:
            self._cut(entry, exc)
            return None
        self._verify(entry, stream.hasher.hexdigest(), stream.size)
        return result

    def _whole(self, entry: ArtifactEntry) -> bytes | None:
        """An artifact's bytes, verified; ``None`` (with a finding) when it cannot be read as declared."""
        handle = self._open(entry)
        if handle is None:
            return None
        with handle:
            try:
                data = handle.read_all()
            except PackageFileError as exc:
                self._cut(entry, exc)
                return None
        self._verify(entry, hashlib.sha256(data).hexdigest(), len(data))
        return data


@dataclass(slots=True)
class StreamedDocument:
    """The top level of a JSON document: whether it is an object, its scalar members (a member that
    is an object or array is kept as ``NOT_SCALAR`` unless it was asked for whole), and the kind
    (``object``, ``array``, ``scalar``) and count of each streamed member."""

    is_object: bool
    members: dict[str, Any] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


#: What a streamed member's entries are handed to: ``(key, value)`` of an object, ``(None, element)`` of an array.
OnEntry = Callable[[str | None, Any], None]


#: Stands for a top-level member that is an object or an array: it equals no scalar.
NOT_SCALAR = object()


class _HashingStream:
    """A binary reader that hashes and counts every byte it hands on."""

    def __init__(self, handle: PackageFile) -> None:
        self._handle = handle
        self.hasher = hashlib.sha256()
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self._handle.read(size)
        self.hasher.update(chunk)
        self.size += len(chunk)
        return chunk


def _feed(stream: _HashingStream, *, member: str, kind: str, on_entry: OnEntry) -> bool:
    """Hand ``member`` (an object or an array) of the document in ``stream`` to ``on_entry``, entry by entry."""
    if kind == "object":
        for key, value in ijson.kvitems(stream, member, use_float=True):
            on_entry(key, value)
    else:
        for value in ijson.items(stream, f"{member}.item", use_float=True):
            on_entry(None, value)
    return True


def _top_level(
    events: Iterator[tuple[str, Any]], streamed: frozenset[str], whole: frozenset[str] = frozenset()
) -> StreamedDocument:
    """Read the top level of a document from its parse events; deeper, only check depth and repeated keys
    (and build the members named in ``whole``).

    ``keys`` holds the keys the innermost open object has had so far (``None`` in an array, and in a
    ``streamed`` member's own object, whose repeated keys its reader counts); ``outer`` those of the
    containers around it. This loop sees every event of the document, so it is kept lean: events
    are compared in the order of their frequency, and each open container costs one set at most.
    """
    events = iter(events)
    event, value = next(events, ("end_map", None))
    document = StreamedDocument(event == "start_map")
    depth = 1 if event in ("start_map", "start_array") else 0
    keys: set[str] | None = set() if event == "start_map" else None
    outer: list[set[str] | None] = []
    push, pop = outer.append, outer.pop
    key: str | None = None
    building: tuple[str, ijson.ObjectBuilder] | None = None
    for event, value in events:
        if building is not None:
            building[1].event(event, value)
        if event == "map_key":
            if keys is not None:
                if value in keys and not (depth == 1 and value in streamed):
                    raise _Refused(f"repeats the key {shown_key(value)} in one object")
                keys.add(value)
            if depth == 1:
                key = value
        elif event == "end_map" or event == "end_array":
            depth -= 1
            keys = pop() if outer else None
            if depth == 1 and building is not None:
                document.members[building[0]] = building[1].value
                building = None
        elif event == "start_map" or event == "start_array":
            if depth == 1 and key is not None:
                document.members[key] = NOT_SCALAR
                if key in streamed:
                    document.counts[key] = document.counts.get(key, 0) + 1
                    document.kinds[key] = "object" if event == "start_map" else "array"
                if key in whole:
                    building = (key, ijson.ObjectBuilder())
                    building[1].event(event, value)
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise _Refused(f"is nested deeper than {MAX_JSON_DEPTH} levels")
            push(keys)
            keys = set() if event == "start_map" and not (depth == 2 and key in streamed) else None
            if depth == 2:
                key = None
        elif depth == 1 and key is not None:  # a scalar member of the top level
            document.members[key] = value
            if key in streamed:
                document.counts[key] = document.counts.get(key, 0) + 1
                document.kinds[key] = "scalar"
            key = None
    return document
