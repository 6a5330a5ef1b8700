"""Reads each declared artifact of a package once, verifying its size and SHA-256 on the way."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgfegmcp.models import file_digest
from kgfegmcp.packages.collector import FindingCollector
from kgfegmcp.packages.decoder import iter_physical_lines
from kgfegmcp.packages.finding_codes import FindingCode
from kgfegmcp.packages.manifest import PackageManifest

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
        hasher = hashlib.sha256()
        size = 0

        def sink(chunk: bytes) -> None:
            nonlocal size
            hasher.update(chunk)
            size += len(chunk)

        with (self._dir / entry.path).open("rb") as stream:
            yield from iter_physical_lines(stream, sink)
        self._verify(logical_name, hasher.hexdigest(), size)

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

    def raw(self, logical_name: str) -> bytes:
        """Read and verify an artifact's bytes."""
        entry = self._manifest.artifact(logical_name)
        assert entry is not None
        data = (self._dir / entry.path).read_bytes()
        self._verify(logical_name, hashlib.sha256(data).hexdigest(), len(data))
        return data
