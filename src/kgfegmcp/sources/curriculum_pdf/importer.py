"""``--source nacca-pdf FILE.pdf``: one published curriculum PDF → one pending package, read through a layout.

*Read* is :class:`~kgfegmcp.sources.curriculum_pdf.document.CurriculumPdf` (pages, tables, statements, the
title); *map* is :class:`~kgfegmcp.sources.curriculum_pdf.mapping.CurriculumPdfMapping`. The source's
rights are not stated in its documents, so the package carries its profile's rights (review required, text
withheld) and the operator decides: ``--review-status`` records that decision in the operator's rights file,
outside the package, as ``kgfegmcp packages review`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.curriculum_pdf.document import CurriculumPdf
from kgfegmcp.sources.curriculum_pdf.layout import CurriculumPdfLayout, load_layout
from kgfegmcp.sources.curriculum_pdf.mapping import CurriculumPdfMapping
from kgfegmcp.sources.importer import ProgressCallback, SourceImporter


class CurriculumPdfSource(SourceImporter[CurriculumPdf]):
    """A curriculum PDF in a declared table layout; a subclass names its layout (one line of data, no code)."""

    name = "curriculum-pdf"
    memory_hint = "A curriculum PDF is a few MB of text (NaCCA's build in under 40 MB); pass the file as published."
    layout_id: ClassVar[str]
    takes_review_status = True

    def __init__(self, layout: CurriculumPdfLayout | None = None) -> None:
        self._layout = layout

    @property
    def layout(self) -> CurriculumPdfLayout:
        """The layout documents of this source are read through."""
        if self._layout is None:
            self._layout = load_layout(self.layout_id)
        return self._layout

    @contextmanager
    def read(self, source_input: Path | None, report: ProgressCallback) -> Iterator[CurriculumPdf]:
        """Read the PDF given to ``packages build``."""
        if source_input is None:
            raise ManifestBuildError(
                f"The {self.name} source needs a curriculum PDF file.",
                hint=f"Run `kgfegmcp packages build --source {self.name} FILE.pdf`.",
            )
        report(f"reading {source_input.name}")
        yield CurriculumPdf.read(source_input, self.layout, report)

    def map(self, source: CurriculumPdf, profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        """The one package of the PDF."""
        report(f"building {source.framework_id}")
        return [CurriculumPdfMapping(source, profiles).run()]


class NaccaPdfSource(CurriculumPdfSource):
    """``--source nacca-pdf``: NaCCA's 2019 standards-based curriculum PDFs (Ghana)."""

    name = "nacca-pdf"
    layout_id = "nacca-2019"
