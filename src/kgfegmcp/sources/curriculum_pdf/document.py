"""A curriculum PDF being read: its bytes' SHA-256, the title its first pages print, and its statements.

This is the PDF importer's source model (what its *read* step yields). The title page names the subject,
the schools and the levels ('ENGLISH LANGUAGE' / 'CURRICULUM FOR PRIMARY SCHOOLS' / '(BASIC 1 - 3)'), which
give the framework id by the layout's pattern; a PDF whose first pages print no such title, or whose pages
hold no table the layout knows, is not in the layout and is refused in one line saying what was found.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.sources.curriculum_pdf.layout import CurriculumPdfLayout
from kgfegmcp.sources.curriculum_pdf.pages import PdfPages
from kgfegmcp.sources.curriculum_pdf.statements import CurriculumDocument, StatementAssembler, sequence_findings
from kgfegmcp.sources.graph_builder import Provenance, identifier_from

#: The largest PDF read (the official documents are 1-3 MB).
MAX_PDF_BYTES = 64 * 1024 * 1024
_PDF_MAGIC = b"%PDF-"


@dataclass(frozen=True, slots=True)
class DocumentTitle:
    """What the title page prints: subject, schools, levels and date, and the lines as printed."""

    subject: str
    schools: str
    levels: str
    month: str | None
    year: str | None
    name: str


def read_title(lines: list[str], layout: CurriculumPdfLayout) -> DocumentTitle | None:
    """The title the layout's patterns find on the leading pages' lines, or ``None``."""
    page = layout.title_page
    curriculum = re.compile(page.curriculum)
    for index, line in enumerate(lines):
        match = curriculum.fullmatch(line)
        if match is None or index == 0:
            continue
        subject = re.fullmatch(page.subject, lines[index - 1])
        following = lines[index + 1 : index + 4]
        levels = next((m for m in (re.fullmatch(page.levels, f) for f in following) if m), None)
        if subject is None or levels is None:
            continue
        date = next((m for m in (re.fullmatch(page.date, f) for f in lines[index + 1 : index + 6]) if m), None)
        return DocumentTitle(
            subject=subject["subject"].strip(),
            schools=match["schools"].strip(),
            levels=levels["levels"].strip(),
            month=date["month"] if date else None,
            year=date["year"] if date else None,
            name=f"{lines[index - 1]} {line} {levels.group(0)}",
        )
    return None


@dataclass(frozen=True, slots=True)
class CurriculumPdf:
    """One read curriculum PDF: where it came from, its title, its statements and what reading it found."""

    file_name: str
    sha256: str
    size: int
    page_count: int
    title: DocumentTitle
    layout: CurriculumPdfLayout
    document: CurriculumDocument

    @classmethod
    def read(cls, path: Path, layout: CurriculumPdfLayout, report: Any = None) -> CurriculumPdf:
        """Read and check one PDF; ``manifest_build_error`` when it is not one, or not in the layout."""
        if not path.is_file():
            raise ManifestBuildError(f"PDF input {path.name} is not a readable file.")
        size = path.stat().st_size
        if size > MAX_PDF_BYTES:
            raise ManifestBuildError(f"PDF input {path.name} exceeds {MAX_PDF_BYTES // (1024 * 1024)} MiB.")
        data = path.read_bytes()
        if not data.startswith(_PDF_MAGIC):
            raise ManifestBuildError(
                f"{path.name} is not a PDF (it does not begin with %PDF-).",
                hint="Pass the curriculum's PDF file as published.",
            )
        sha256 = hashlib.sha256(data).hexdigest()
        del data
        with PdfPages(path, layout) as pdf:
            title = read_title(pdf.title_lines(), layout)
            assembler = StatementAssembler(layout)
            pages = pdf.pages()
            if report is not None:
                pages = _reporting(pages, pdf.page_count, report)
            document = assembler.read(pages)
            page_count = pdf.page_count
        document.findings.extend(sequence_findings(document))
        problems = []
        if title is None:
            problems.append(f"no title page naming a curriculum ({layout.title_page.curriculum!r}) on its first pages")
        if not document.statements:
            headers = " / ".join(rule.header for rule in layout.columns[:2])
            problems.append(
                f"no statement in a table headed like {headers!r} on any of its {page_count} pages "
                f"({document.tables} table(s) of the layout found)"
            )
        if problems:
            raise ManifestBuildError(
                f"{path.name} is not in the {layout.title} layout: " + "; and ".join(problems) + ".",
                hint=f"The {layout.layout_id} layout reads {layout.publisher}'s curriculum PDFs as published.",
            )
        assert title is not None
        return cls(path.name, sha256, size, page_count, title, layout, document)

    @property
    def framework_id(self) -> str:
        """The layout's framework id pattern filled from the title page."""
        title = self.title
        levels = re.sub(r"(?<=[A-Za-z])(?=[0-9])", " ", title.levels)  # "(BASIC4 - 6)" names basic 4 to 6
        text = self.layout.framework_id.format(subject=title.subject, schools=title.schools, levels=levels)
        return identifier_from(text, "framework id")

    @property
    def in_language(self) -> str:
        """The statements' language: the layout's, unless it names another for this subject."""
        return self.layout.subject_languages.get(self.title.subject, self.layout.in_language)

    @property
    def snapshot_id(self) -> str:
        """The publication year and the first 12 hex digits of the PDF's SHA-256 (``2019-e49a79263701``)."""
        return identifier_from(f"{self.title.year or 'undated'}-{self.sha256[:12]}", "snapshot id")

    def dataset_ref(self) -> dict[str, str]:
        """Which bytes a provenance record refers to."""
        return {"name": self.file_name, "sha256": self.sha256, "publisher": self.layout.publisher}

    def provenance(self, pages: list[int], printed: list[str], **locator: Any) -> Provenance:
        """A ``source_extracted`` provenance record locating a statement on its page(s)."""
        where: dict[str, Any] = {"file": self.file_name, "layout": self.layout.layout_id, "pages": pages}
        if printed:
            where["printedPages"] = printed
        where.update({k: v for k, v in locator.items() if v is not None})
        return {"epistemicStatus": "source_extracted", "dataset": self.dataset_ref(), "locator": where}


def _reporting(pages: Any, total: int, report: Any) -> Any:
    for page in pages:
        if page.number % 10 == 1:
            report(f"reading page {page.number} of {total}")
        yield page
