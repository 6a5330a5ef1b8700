"""Writing a package's files: each artifact streamed into a staging directory, hashed and counted on the way,
then the staging directory swapped in for the package in one rename, so a reader sees the old package or the
new one, never a mixture, and a failed write leaves nothing behind."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE
from kgfegmcp.packages.package_lock import package_lock


@dataclass(frozen=True, slots=True)
class Written:
    """One artifact as written: where, its SHA-256 and size, its media type."""

    path: str
    sha256: str
    size: int
    media_type: str


class ArtifactStream:
    """One artifact file being written, hashed and counted on the way."""

    def __init__(self, destination: Path, path: str, media_type: str, buffer: int) -> None:
        destination.parent.mkdir(parents=True, exist_ok=True)
        self._file = destination.open("wb", buffering=buffer)
        self._digest = hashlib.sha256()
        self._size = 0
        self._members = 0
        self._path = path
        self._media_type = media_type

    def write(self, data: bytes) -> None:
        self._file.write(data)
        self._digest.update(data)
        self._size += len(data)

    def write_member(self, member: bytes) -> None:
        """One member of the one JSON object this artifact streams: a comma before all but the first."""
        self.write(b"," + member if self._members else member)
        self._members += 1

    def write_joined(self, elements: Iterable[bytes]) -> None:
        """The elements of one JSON array, comma-separated."""
        separator = b""
        for element in elements:
            self.write(separator + element)
            separator = b","

    def close(self) -> Written:
        self._file.close()
        return Written(self._path, self._digest.hexdigest(), self._size, self._media_type)


class Staging:
    """The artifacts written so far into a staging directory, each at its role's path (``artifact_roles``)."""

    def __init__(self, directory: Path, subject: str) -> None:
        self._directory = directory
        self._subject = subject
        self.written: dict[str, Written] = {}

    @contextlib.contextmanager
    def stream(self, logical_name: str, buffer: int = 1 << 20) -> Iterator[ArtifactStream]:
        """The artifact of role ``logical_name`` written piece by piece; recorded when the block ends."""
        role = ARTIFACT_ROLE[logical_name]
        path = role.path_for(self._subject)
        artifact = ArtifactStream(self._directory / path, path, role.media_type, buffer)
        try:
            yield artifact
        finally:
            self.written[logical_name] = artifact.close()

    def document(self, logical_name: str, data: bytes) -> None:
        """A small artifact written whole."""
        with self.stream(logical_name) as artifact:
            artifact.write(data)

    def lines(self, logical_name: str) -> Iterator[bytes]:
        """The lines of a JSONL artifact written before, without their newlines."""
        with (self._directory / self.written[logical_name].path).open("rb") as stream:
            for line in stream:
                yield line.rstrip(b"\n")


def replace_directory(target: Path, fill: Callable[[Path], None], parents: list[Path] | None = None) -> None:
    """Write into a staging directory beside the target (``fill`` writes the package), then swap it in.

    On any failure nothing of the new package is left: not the staging directory, not the
    directories this call created for it; a package it was replacing stays as it was. On success
    the directories it created are added to ``parents``.
    """
    created: list[Path] = []
    staging: Path | None = None
    try:
        make_directories(target.parent, created)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
        fill(staging)
        for directory in (staging, *(p for p in staging.rglob("*") if p.is_dir())):
            os.chmod(directory, 0o755)
        if target.exists():
            with package_lock(target):  # never swap a package out from under a validation
                swap(staging, target)
        else:
            os.replace(staging, target)
    except BaseException:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        remove_empty(created)
        raise
    if parents is not None:
        parents.extend(created)


def remove_empty(directories: list[Path]) -> None:
    """Remove ``directories`` innermost first, each only if empty (another writer may have filled it meanwhile)."""
    for directory in reversed(directories):
        with contextlib.suppress(OSError):
            directory.rmdir()


def make_directories(directory: Path, created: list[Path]) -> None:
    """Create ``directory`` and its missing parents, appending each one this call created to ``created``."""
    missing: list[Path] = []
    current = directory
    while not current.is_dir() and current.parent != current:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            if not path.is_dir():
                raise
            continue  # another writer created it meanwhile: not ours to remove
        created.append(path)


def swap(staging: Path, target: Path) -> None:
    """Replace the package ``target`` by ``staging``; if that fails, ``target`` is put back as it was."""
    retired = Path(tempfile.mkdtemp(prefix=".retired-", dir=target.parent))
    try:
        os.replace(target, retired / "old")
    except BaseException:
        retired.rmdir()
        raise
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(retired / "old", target)  # should even this fail, the old package is kept in ``retired``
        retired.rmdir()
        raise
    shutil.rmtree(retired, ignore_errors=True)
