"""Recording a terminal validation state: the reports and the manifest change together or not at all.

The reports change (the package's, and the learning-component collection's when it has one), then
the manifest that pins their SHA-256s, and no filesystem renames several files at once. So every new
version is first written in full beside its original under ``.<name>.recording`` and flushed to
disk; only then are the reports renamed into place, then the manifest. A run killed at any point
leaves one of three states, and :func:`recover` (run under the package lock before the next
validation) resolves each without blaming the package:

- no complete manifest recording: nothing was renamed yet, so the recordings are deleted (rolled back);
- a complete manifest recording whose reports are each in place or fully recorded: the renames are
  finished (rolled forward), and the package is then re-checked like any terminal package;
- after the last rename nothing is left to do.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from kgfegmcp.core.package_files import PackageFileError, read_package_file
from kgfegmcp.packages.artifact_roles import VALIDATION_REPORTS
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.manifest_reader import read_manifest

log = logging.getLogger(__name__)

RECORDING_SUFFIX = ".recording"

Recovery = Literal["finished", "rolled_back"]

#: The report roles a terminal state rewrites, in the order they are renamed into place.
RECORDED_REPORTS: tuple[str, ...] = VALIDATION_REPORTS


def recording_name(name: str) -> str:
    """The name a file's new version has while it is being recorded."""
    return f".{name}{RECORDING_SUFFIX}"


def is_recording_name(name: str) -> bool:
    """Whether a file name is one of this module's in-progress recordings."""
    return name.startswith(".") and name.endswith(RECORDING_SUFFIX)


@dataclass(frozen=True, slots=True)
class TerminalStateRecording:
    """The files of one package that a terminal state rewrites: its reports, then its manifest."""

    package_dir: Path
    report_paths: tuple[str, ...]

    @property
    def _reports(self) -> list[Path]:
        return [self.package_dir / path for path in self.report_paths]

    @property
    def _manifest(self) -> Path:
        return self.package_dir / MANIFEST_FILENAME

    @staticmethod
    def _recording(path: Path) -> Path:
        return path.with_name(recording_name(path.name))

    def commit(self, reports: dict[str, bytes], manifest: bytes) -> None:
        """Write every new version in full, then rename the reports and then the manifest into place.

        A failure while writing (a full disk, a read-only mount) removes what was written, as
        :meth:`recover` would after a kill: the package is left exactly as it was, and the error raised.
        """
        if sorted(reports) != sorted(self.report_paths):
            raise ValueError("a recording rewrites exactly the reports it was made for")
        try:
            for relative, report in zip(self.report_paths, self._reports, strict=True):
                _write_durably(self._recording(report), reports[relative])
            _write_durably(self._recording(self._manifest), manifest)
        except BaseException:
            for leftover in (*self._reports, self._manifest):
                with contextlib.suppress(OSError):
                    self._recording(leftover).unlink(missing_ok=True)
            raise
        for report in self._reports:
            os.replace(self._recording(report), report)
        os.replace(self._recording(self._manifest), self._manifest)
        self._sync()

    def recover(self) -> Recovery | None:
        """Finish or roll back a recording a killed run left behind; ``None`` when there was none."""
        manifest_recording = self._recording(self._manifest)
        leftovers = [self._recording(path) for path in (*self._reports, self._manifest)]
        if not any(leftover.exists() for leftover in leftovers):
            return None
        expected = _recorded_report_digests(manifest_recording)
        if expected is not None and sorted(expected) == sorted(self.report_paths):
            for relative, report in zip(self.report_paths, self._reports, strict=True):
                if _holds(self._recording(report), expected[relative]):
                    os.replace(self._recording(report), report)
            if all(_holds(report, expected[p]) for p, report in zip(self.report_paths, self._reports, strict=True)):
                os.replace(manifest_recording, self._manifest)
                self._sync()
                return "finished"
        for leftover in leftovers:
            leftover.unlink(missing_ok=True)
        return "rolled_back"

    def _sync(self) -> None:
        for directory in sorted({report.parent for report in self._reports} | {self.package_dir}):
            _sync_directory(directory)


def recorded_report_paths(manifest: PackageManifest) -> tuple[str, ...]:
    """The paths of the reports ``manifest`` declares, in :data:`RECORDED_REPORTS` order."""
    return tuple(entry.path for role in RECORDED_REPORTS if (entry := manifest.artifact(role)) is not None)


def recording_for(package_dir: Path) -> TerminalStateRecording | None:
    """The recording of the package in ``package_dir``, or ``None`` when its manifest is unreadable."""
    try:
        manifest, _ = read_manifest(package_dir)
    except (PackageFileError, ValidationError):
        return None
    paths = recorded_report_paths(manifest)
    return TerminalStateRecording(package_dir, paths) if paths else None


def _recorded_report_digests(manifest_recording: Path) -> dict[str, tuple[int, str]] | None:
    """Each report's size and SHA-256 a complete manifest recording pins, by path, if it is one."""
    try:
        manifest, _ = read_manifest(manifest_recording.parent, manifest_recording.name)
    except (PackageFileError, ValidationError):
        return None
    if manifest.validation.status == "pending":
        return None
    return {
        entry.path: (entry.bytes, entry.sha256)
        for role in RECORDED_REPORTS
        if (entry := manifest.artifact(role)) is not None
    }


def _holds(path: Path, expected: tuple[int, str]) -> bool:
    """Whether a report (or its recording) has exactly the size and SHA-256 a manifest recording pins.

    Read as a package file: one of another size is not read at all.
    """
    size, sha256 = expected
    try:
        data = read_package_file(path.parent, path.name, expected_bytes=size)
    except PackageFileError:
        return False
    return hashlib.sha256(data).hexdigest() == sha256


def _write_durably(path: Path, data: bytes) -> None:
    with path.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _sync_directory(directory: Path) -> None:
    """Make the renames in ``directory`` durable (not possible on every platform; best effort)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
