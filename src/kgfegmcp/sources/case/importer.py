"""``--source case FILE`` (and ``packages fetch``): one CASE ``CFPackage`` → one graph package.

*Read* opens the CFPackage (a file, or bytes a publisher's CASE API returned, see
:mod:`kgfegmcp.sources.case.client`) as a :class:`CaseDataset`; *map* is
:class:`~kgfegmcp.sources.case.mapping.CaseMapping`. The file stays open while it is mapped: the
reader streams it once for the items and once for the associations, so a build holds the package's
graph but never the document.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case.dataset import CaseDataset, CaseInputOrigin, no_deadline
from kgfegmcp.sources.case.mapping import CaseMapping
from kgfegmcp.sources.importer import ProgressCallback, SourceImporter
from kgfegmcp.sources.memory_budget import memory_budget

MAX_INPUT_BYTES = 512 * 1024 * 1024


def check_case_file(path: Path | None) -> Path:
    """A CFPackage file to read; ``manifest_build_error`` when there is none or it is too large."""
    if path is None:
        raise ManifestBuildError(
            "The case source needs a CASE CFPackage JSON file.",
            hint="Run `kgfegmcp packages build --source case FILE.json`, or `kgfegmcp packages fetch --case-url URL`.",
        )
    if not path.is_file():
        raise ManifestBuildError(f"CASE input {path.name} is not a readable file.")
    if path.stat().st_size > MAX_INPUT_BYTES:
        raise ManifestBuildError(f"CASE input {path.name} exceeds {MAX_INPUT_BYTES // (1024 * 1024)} MiB.")
    return path


class CaseSource(SourceImporter[CaseDataset]):
    """``--source case FILE``: one CFPackage → one package; ids and profile default from the document."""

    name = "case"
    memory_hint = "A CFPackage of up to about 500,000 items builds within the budget; build a larger one in parts."

    def __init__(self, framework_id: str | None = None, snapshot_id: str | None = None) -> None:
        self._framework_id = framework_id
        self._snapshot_id = snapshot_id

    @contextmanager
    def read(self, source_input: Path | None, report: ProgressCallback) -> Iterator[CaseDataset]:
        """Open the CFPackage file given to ``packages build --source case``."""
        path = check_case_file(source_input)
        with path.open("rb") as stream:
            yield self.read_stream(stream, CaseInputOrigin.file(path), report)

    def read_stream(
        self,
        stream: IO[bytes],
        origin: CaseInputOrigin,
        report: ProgressCallback,
        checkpoint: Callable[[], None] = no_deadline,
    ) -> CaseDataset:
        """Open the CFPackage in ``stream``, read from ``origin`` (seekable: read once per pass); ``checkpoint``
        is called before every read and between the mapping's steps (a fetch's deadline)."""
        report("reading the CASE CFPackage")
        return CaseDataset.read(stream, origin, checkpoint)

    def map(self, source: CaseDataset, profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        """The one package of the CFPackage."""
        report("converting the CASE CFPackage")
        return [CaseMapping(source, profiles, self._framework_id, self._snapshot_id).run()]

    def build_stream(
        self,
        stream: IO[bytes],
        origin: CaseInputOrigin,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
        checkpoint: Callable[[], None] = no_deadline,
    ) -> list[PackageContent]:
        """:meth:`build` of a CFPackage in ``stream`` rather than a file (``packages fetch`` reads its download,
        under its deadline: ``checkpoint``)."""
        report = progress or (lambda _step: None)
        with memory_budget(origin.file_name or origin.label, self.memory_hint):
            return self.map(self.read_stream(stream, origin, report, checkpoint), profiles, report)

    def build_bytes(
        self,
        data: bytes,
        origin: CaseInputOrigin,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
    ) -> list[PackageContent]:
        """:meth:`build_stream` of CFPackage bytes already in memory."""
        return self.build_stream(io.BytesIO(data), origin, profiles, progress)
