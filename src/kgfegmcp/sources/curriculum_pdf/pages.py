"""A curriculum PDF read page by page: heading lines and ruled tables, each cell's lines with their fonts.

pdfplumber gives every word with its font and position, and finds tables by their ruling. This module
turns a page into what the layout speaks of: lines outside the tables (headings; page furniture such as
the © line and the page number is set aside, the number kept as the printed page label), and each
table's rows with every cell's lines under the column role its header names. A table with no header row
takes the columns of the table before it (a table broken by a page); whether it does continue that table is
the assembler's to decide. Nothing here knows what a code or a strand is: that is :mod:`.statements`.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.sources.curriculum_pdf.layout import ColumnRole, CurriculumPdfLayout

#: Words whose tops differ by at most this many points are on one line.
LINE_TOLERANCE = 2.5
#: Column boundaries closer than this (points) are one boundary.
BOUNDARY_TOLERANCE = 2.0
#: The share of the page's height, at its foot, where page furniture (the © line, the page number) sits.
FOOTER_SHARE = 0.2
#: A page number shares the © line's baseline at least this far (points) to its right.
FOOTER_GAP = 40.0
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_PAGE_NUMBER = re.compile(r"^(?:[0-9]{1,4}|[ivxlcdm]{1,8})$")


@dataclass(frozen=True, slots=True)
class Word:
    """One word as printed: its text, box and whether its font is bold."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    bold: bool


@dataclass(frozen=True, slots=True)
class Line:
    """Words on one baseline, left to right, on one page."""

    words: tuple[Word, ...]
    page: int

    @property
    def text(self) -> str:
        """The words joined by single spaces."""
        return " ".join(w.text for w in self.words)

    @property
    def x0(self) -> float:
        """Left edge of the first word."""
        return self.words[0].x0

    @property
    def top(self) -> float:
        """Top of the line (its highest word)."""
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        """Bottom of the line (its lowest word)."""
        return max(w.bottom for w in self.words)

    def bold_upto(self, characters: int) -> bool:
        """Whether the words covering the first ``characters`` characters of :attr:`text` are all bold."""
        seen = 0
        for word in self.words:
            if not word.bold:
                return False
            seen += len(word.text) + 1
            if seen > characters:
                return True
        return True


@dataclass(frozen=True, slots=True)
class TableRow:
    """One ruled row: the lines of each column the layout names, top to bottom (all of them when spanning)."""

    cells: tuple[tuple[ColumnRole | None, tuple[Line, ...]], ...]
    spanning: bool  # one cell spans the whole row (a heading inside the table)
    top: float

    def lines(self, role: ColumnRole) -> tuple[Line, ...]:
        """The lines of the column with this role (none when the row has no such column)."""
        return next((lines for r, lines in self.cells if r == role), ())


#: A header cell: its horizontal extent and the role its text names.
HeaderCell = tuple[float, float, "ColumnRole | None"]


@dataclass(frozen=True, slots=True)
class PageTable:
    """A ruled table of one page, with the header cells its columns' roles come from."""

    header: tuple[HeaderCell, ...]
    rows: tuple[TableRow, ...]
    top: float
    continued: bool  # no header row: it continues the table before it


@dataclass(frozen=True, slots=True)
class PageHeading:
    """A line outside the tables that is not page furniture."""

    line: Line


Block = PageHeading | PageTable


@dataclass(frozen=True, slots=True)
class PdfPage:
    """One page: its 1-based number, the page number printed on it, and its blocks top to bottom."""

    number: int
    printed: str | None
    blocks: tuple[Block, ...]


def lines_of(words: Sequence[Word], page: int) -> tuple[Line, ...]:
    """Words grouped into lines (tops within :data:`LINE_TOLERANCE`), top to bottom, each left to right."""
    ordered = sorted(words, key=lambda w: (w.top, w.x0))
    lines: list[list[Word]] = []
    for word in ordered:
        if lines and abs(word.top - lines[-1][0].top) <= LINE_TOLERANCE:
            lines[-1].append(word)
        else:
            lines.append([word])
    return tuple(Line(tuple(sorted(group, key=lambda w: w.x0)), page) for group in lines)


def _boundaries(cells: Sequence[tuple[float, float, float, float]]) -> list[float]:
    """The distinct left edges of the cells, and the right edge of the table."""
    edges = sorted({round(c[0], 1) for c in cells} | {round(max(c[2] for c in cells), 1)})
    merged: list[float] = []
    for edge in edges:
        if not merged or edge - merged[-1] > BOUNDARY_TOLERANCE:
            merged.append(edge)
    return merged


@dataclass(slots=True)
class _Grid:
    """One table's ruling (its rows' vertical ranges and each row's cells) and the words inside it, by row."""

    bbox: tuple[float, float, float, float]
    rows: list[tuple[float, float, int]]  # top, bottom, how many cells the row has
    cells: list[list[tuple[float, float, float, float]]]
    words: list[list[Word]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.words = [[] for _ in self.rows]

    def holds(self, word: Word) -> bool:
        x0, top, x1, bottom = self.bbox
        cx, cy = (word.x0 + word.x1) / 2, (word.top + word.bottom) / 2
        return x0 <= cx <= x1 and top <= cy <= bottom

    def place(self, word: Word) -> None:
        cy = (word.top + word.bottom) / 2
        row = next((i for i, (top, bottom, _n) in enumerate(self.rows) if top <= cy <= bottom), len(self.rows) - 1)
        self.words[row].append(word)

    def row_edges(self, index: int) -> list[float]:
        """The column edges one row's cells draw."""
        return _boundaries(self.cells[index])

    def cell_lines(self, index: int, edges: list[float], page: int) -> tuple[tuple[Line, ...], ...]:
        """One row's words split into the columns ``edges`` draw, each as lines."""
        columns: list[list[Word]] = [[] for _ in range(len(edges) - 1)]
        for word in self.words[index]:
            cx = (word.x0 + word.x1) / 2
            columns[min(max(bisect.bisect_right(edges, cx) - 1, 0), len(edges) - 2)].append(word)
        return tuple(lines_of(words, page) for words in columns)


class PdfPages:
    """An open curriculum PDF (a context manager): its title lines and its pages, read through a layout."""

    def __init__(self, path: Path, layout: CurriculumPdfLayout) -> None:
        import pdfplumber  # imported here: only a PDF build needs it
        from pdfminer.pdfparser import PDFSyntaxError
        from pdfplumber.utils.exceptions import PdfminerException

        self._layout = layout
        try:
            self._pdf = pdfplumber.open(path)
            self.page_count = len(self._pdf.pages)
        except (PdfminerException, PDFSyntaxError, ValueError, KeyError, TypeError) as exc:
            raise ManifestBuildError(
                f"{path.name} is not a readable PDF ({type(exc).__name__}).",
                hint="Pass the curriculum's PDF file as published.",
            ) from None

    def __enter__(self) -> PdfPages:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._pdf.close()

    def _words(self, page: Any) -> list[Word]:
        return [
            Word(
                w["text"],
                float(w["x0"]),
                float(w["x1"]),
                float(w["top"]),
                float(w["bottom"]),
                bool(_BOLD.search(w["fontname"])),
            )
            for w in page.extract_words(extra_attrs=["fontname"])
        ]

    def title_lines(self) -> list[str]:
        """The text lines of the leading pages the layout reads for the document's title."""
        found: list[str] = []
        for page in self._pdf.pages[: self._layout.title_page.pages]:
            found.extend(" ".join(line.text.split()) for line in lines_of(self._words(page), page.page_number))
            page.close()
        return found

    def pages(self) -> Iterator[PdfPage]:
        """Every page, in order; a page's parsed objects are released once it is read."""
        previous: PageTable | None = None
        for page in self._pdf.pages:
            try:
                read, previous = self._page(page, previous)
            finally:
                page.close()
            yield read

    def _page(self, page: Any, previous: PageTable | None) -> tuple[PdfPage, PageTable | None]:
        """The page, and the last table whose columns have roles so far (the one a headerless table continues)."""
        words = self._words(page)
        grids = []
        for table in page.find_tables():
            rows = [r for r in table.rows if any(c is not None for c in r.cells)]
            cells = [c for r in rows for c in r.cells if c is not None]
            if not cells:
                continue
            if len(_boundaries(cells)) < 3:
                continue  # one column: a framed paragraph, not a table of statements
            grids.append(
                _Grid(
                    table.bbox,
                    [(r.bbox[1], r.bbox[3], sum(c is not None for c in r.cells)) for r in rows],
                    [[c for c in r.cells if c is not None] for r in rows],
                )
            )
        outside: list[Word] = []
        for word in words:
            grid = next((g for g in grids if g.holds(word)), None)
            if grid is None:
                outside.append(word)
            else:
                grid.place(word)
        printed, headings = self._outside(outside, page.page_number, float(page.height))
        blocks: list[tuple[float, Block]] = [(h.line.top, h) for h in headings]
        for grid in sorted(grids, key=lambda g: g.bbox[1]):
            table = self._table(grid, page.page_number, previous)
            blocks.append((table.top, table))
            if not table.continued or previous is not None:
                previous = table
        blocks.sort(key=lambda pair: pair[0])
        return PdfPage(page.page_number, printed, tuple(b for _top, b in blocks)), previous

    def _outside(self, words: list[Word], number: int, height: float) -> tuple[str | None, list[PageHeading]]:
        """The printed page number and the heading lines among the words outside the tables.

        Furniture lines (the layout's: the © line, a lone page number) are set aside; a page number is read from
        a lone number in the page's foot, or from the end of the © line it shares a baseline with.
        """
        foot = height * (1 - FOOTER_SHARE)
        printed = None
        headings = []
        for line in lines_of(words, number):
            text = line.text.strip()
            last = line.words[-1]
            if line.top >= foot and _PAGE_NUMBER.fullmatch(last.text):
                gap = last.x0 - line.words[-2].x1 if len(line.words) > 1 else None
                if gap is None or gap > FOOTER_GAP:
                    printed = last.text
            if any(p.search(text) for p in self._layout.furniture_patterns):
                continue
            headings.append(PageHeading(line))
        return printed, headings

    def _header(self, grid: _Grid, index: int, page: int) -> tuple[HeaderCell, ...] | None:
        """The header cells of one row, when its texts name the layout's required column roles."""
        edges = grid.row_edges(index)
        texts = grid.cell_lines(index, edges, page)
        header: list[HeaderCell] = []
        for (x0, x1), lines in zip(itertools.pairwise(edges), texts, strict=True):
            text = " ".join(" ".join(line.text for line in lines).split()).upper()
            role = next((r for r, pattern in self._layout.header_patterns if text and pattern.search(text)), None)
            header.append((x0, x1, role if role not in [h[2] for h in header] else None))
        found = {h[2] for h in header}
        return tuple(header) if all(required in found for required in self._layout.required_columns) else None

    def _table(self, grid: _Grid, number: int, previous: PageTable | None) -> PageTable:
        """The grid as a table: headed by its roles, or (no header row) in the columns of ``previous``.

        A header row's cells name the roles; each body row's ruled cells take the role of the header cell they
        overlap most, and neighbouring cells of one role are one column (header and body rules need not line
        up). Whether a table with no header row continues the one before is the assembler's to decide (it knows
        what was printed between them); with no table before it, its columns have no role.
        """
        for index in range(min(3, len(grid.rows))):
            header = self._header(grid, index, number)
            if header is not None:
                return _read(grid, header, number, header_row=index, continued=False)
        header = _shifted(previous.header, grid.bbox) if previous is not None else ((grid.bbox[0], grid.bbox[2], None),)
        return _read(grid, header, number, header_row=None, continued=True)


def _shifted(header: tuple[HeaderCell, ...], bbox: tuple[float, float, float, float]) -> tuple[HeaderCell, ...]:
    """A previous page's header cells scaled onto a continuing table's width (the margins may differ)."""
    left, right = header[0][0], header[-1][1]
    scale = (bbox[2] - bbox[0]) / (right - left) if right > left else 1.0
    return tuple((bbox[0] + (x0 - left) * scale, bbox[0] + (x1 - left) * scale, role) for x0, x1, role in header)


def _role(x0: float, x1: float, header: tuple[HeaderCell, ...]) -> ColumnRole | None:
    """The role of the header cell a body cell overlaps most."""
    best, role = 0.0, None
    for h0, h1, named in header:
        overlap = min(x1, h1) - max(x0, h0)
        if overlap > best:
            best, role = overlap, named
    return role


def _read(
    grid: _Grid, header: tuple[HeaderCell, ...], number: int, *, header_row: int | None, continued: bool
) -> PageTable:
    rows = []
    for index in range(len(grid.rows)):
        if index == header_row:
            continue
        spanning = (header_row is not None and index < header_row) or grid.rows[index][2] == 1
        if spanning:
            cells: tuple[tuple[ColumnRole | None, tuple[Line, ...]], ...] = (
                (None, lines_of(grid.words[index], number)),
            )
        else:
            edges = grid.row_edges(index)
            merged: list[tuple[float, float, ColumnRole | None]] = []
            for x0, x1 in itertools.pairwise(edges):
                role = _role(x0, x1, header)
                if merged and merged[-1][2] == role:
                    merged[-1] = (merged[-1][0], x1, role)
                else:
                    merged.append((x0, x1, role))
            columns = [x0 for x0, _x1, _r in merged] + [merged[-1][1]]
            lines = grid.cell_lines(index, columns, number)
            cells = tuple((role, cell) for (_x0, _x1, role), cell in zip(merged, lines, strict=True))
        if any(cell for _role_, cell in cells):
            rows.append(TableRow(cells, spanning=spanning, top=grid.rows[index][0]))
    return PageTable(header, tuple(rows), grid.bbox[1], continued=continued)
