"""Recording a terminal validation state: the report and the manifest change together or not at all.

Two files change (the report, then the manifest that pins its SHA-256), and no filesystem renames
two files at once. So both new versions are first written in full beside the originals under
``.<name>.recording`` and flushed to disk; only then is the report renamed into place, then the
manifest. A run killed at any point leaves one of three states, and :func:`recover` (run under the
package lock before the next validation) resolves each without blaming the package:

- no complete manifest recording: nothing was renamed yet, so the recordings are deleted (rolled back);
- a complete manifest recording whose report is in place or fully recorded: the renames are
  finished (rolled forward), and the package is then re-checked like any terminal package;
- after the last rename nothing is left to do.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest

log = logging.getLogger(__name__)

RECORDING_SUFFIX = ".recording"

Recovery = Literal["finished", "rolled_back"]


def recording_name(name: str) -> str:
    """The name a file's new version has while it is being recorded."""
    return f".{name}{RECORDING_SUFFIX}"


def is_recording_name(name: str) -> bool:
    """Whether a file name is one of this module's in-progress recordings."""
    return name.startswith(".") and name.endswith(RECORDING_SUFFIX)


@dataclass(frozen=True, slots=True)
class TerminalStateRecording:
    """The two files of one package that a terminal state rewrites."""

    package_dir: Path
    report_path: str

    @property
    def _report(self) -> Path:
        return self.package_dir / self.report_path

    @property
    def _manifest(self) -> Path:
        return self.package_dir / MANIFEST_FILENAME

    @staticmethod
    def _recording(path: Path) -> Path:
        return path.with_name(recording_name(path.name))

    def commit(self, report: bytes, manifest: bytes) -> None:
        """Write both new versions in full, then rename the report and then the manifest into place."""
        for path, data in ((self._report, report), (self._manifest, manifest)):
            _write_durably(self._recording(path), data)
        os.replace(self._recording(self._report), self._report)
        os.replace(self._recording(self._manifest), self._manifest)
        _sync_directory(self._report.parent)
        _sync_directory(self.package_dir)

    def recover(self) -> Recovery | None:
        """Finish or roll back a recording a killed run left behind; ``None`` when there was none."""
        manifest_recording = self._recording(self._manifest)
        report_recording = self._recording(self._report)
        if not (manifest_recording.exists() or report_recording.exists()):
            return None
        expected = _recorded_report_digest(manifest_recording)
        if expected is not None:
            if _digest(report_recording) == expected:
                os.replace(report_recording, self._report)
            if _digest(self._report) == expected:
                os.replace(manifest_recording, self._manifest)
                _sync_directory(self._report.parent)
                _sync_directory(self.package_dir)
                return "finished"
        for leftover in (report_recording, manifest_recording):
            leftover.unlink(missing_ok=True)
        return "rolled_back"


def recording_for(package_dir: Path) -> TerminalStateRecording | None:
    """The recording of the package in ``package_dir``, or ``None`` when its manifest is unreadable."""
    try:
        manifest = PackageManifest.model_validate_json((package_dir / MANIFEST_FILENAME).read_bytes())
    except (OSError, ValidationError):
        return None
    entry = manifest.artifact("validationReport")
    return TerminalStateRecording(package_dir, entry.path) if entry is not None else None


def _recorded_report_digest(manifest_recording: Path) -> tuple[int, str] | None:
    """The report size and SHA-256 a complete manifest recording pins, if it is one."""
    try:
        manifest = PackageManifest.model_validate_json(manifest_recording.read_bytes())
    except (OSError, ValidationError):
        return None
    entry = manifest.artifact("validationReport")
    if manifest.validation.status == "pending" or entry is None:
        return None
    return entry.bytes, entry.sha256


def _digest(path: Path) -> tuple[int, str] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return len(data), hashlib.sha256(data).hexdigest()


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
