"""The one shape of every source importer: read the source, then map it onto packages.

Every importer (``bncc``, ``ccss``, ``case``, and any added later) is a :class:`SourceImporter` with
two steps. :meth:`~SourceImporter.read` locates, verifies and parses the source into a validated
source model (the importer's dataset, which also says how entities cite it); :meth:`~SourceImporter.map`
turns that model into one :class:`PackageContent` per package through
:class:`~kgfegmcp.sources.graph_builder.PackageGraphBuilder`. Writing and validating the packages is
the caller's work (``packages build``, the default catalog), the same for every source.
``docs/sources.md`` ("Adding a source") walks through adding one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import ClassVar, Generic, TypeVar

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.memory_budget import memory_budget

#: Called with a short description of the step being worked on.
ProgressCallback = Callable[[str], None]
#: The validated source model an importer's ``read`` step yields and its ``map`` step takes.
SourceModel = TypeVar("SourceModel")


class SourceImporter(ABC, Generic[SourceModel]):
    """Turns one source (installed registry data, or an input file) into package contents.

    Both steps raise a :class:`kgfegmcp.core.errors.KgfegmcpError` subclass (normally
    ``manifest_build_error``) with a clear message when the source cannot be represented; what can be
    represented only in part is reported as build findings on the package (``builder.add_finding``).
    """

    #: The ``--source`` name it is registered under (:data:`kgfegmcp.sources.SOURCE_IMPORTERS`).
    name: ClassVar[str]
    #: Whether the operator gives its rights review at build time (a source whose documents state no licence):
    #: ``packages build --review-status`` then records it in the operator's rights file, never in the package.
    takes_review_status: ClassVar[bool] = False
    #: What to do when building from one input needs more memory than a build may add.
    memory_hint: ClassVar[str] = "Build from the input as its publisher releases it, one document per file."

    def build(
        self,
        source_input: Path | None,
        profiles: ProfileRepository,
        progress: ProgressCallback | None = None,
    ) -> list[PackageContent]:
        """Read the source and return one :class:`PackageContent` per package, in a stable order."""
        report = progress or _ignore
        what = source_input.name if source_input is not None else f"the {self.name} source"
        with memory_budget(what, self.memory_hint), self.read(source_input, report) as source:
            return self.map(source, profiles, report)

    @abstractmethod
    def read(self, source_input: Path | None, report: ProgressCallback) -> AbstractContextManager[SourceModel]:
        """Locate, verify and parse the source; the model stays usable until the context closes.

        A context, because a source may be read while it is mapped (CASE streams its file in passes);
        an importer that reads everything up front yields its model from a ``@contextmanager`` generator.
        """

    @abstractmethod
    def map(self, source: SourceModel, profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        """Map the source model onto packages, one :class:`PackageGraphBuilder` per package."""


def _ignore(_step: str) -> None:
    """The progress callback of a caller that wants none."""


def refuse_input(source: str, source_input: Path | None, reads: str) -> None:
    """For importers of installed registry data: refuse an input file, naming what they read instead."""
    if source_input is not None:
        raise ManifestBuildError(
            f"The {source} source reads {reads}; it takes no input file.",
            hint=f"Run `kgfegmcp packages build --source {source}` without an input.",
        )
