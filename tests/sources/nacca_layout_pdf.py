"""Small PDFs in the layout of NaCCA's 2019 curriculum documents, written with reportlab for the PDF importer's tests.

The importer reads what a typesetter leaves in a PDF: each word's font and position, and the ruling of the
tables. So this writes exactly that, as the published documents print it: landscape A4 pages, a title page,
centred bold headings over a three-column ruled table (every cell border drawn, so pdfplumber finds the grid),
bold codes and statements, regular bulleted exemplars, and the © line with the page number on one baseline at
the foot of every page. Cell text is wrapped to the cell's width here, as a typesetter would, and the wrapped
lines are recorded so a test can check that a statement really was printed over several lines.

The output is deterministic (reportlab's ``invariant`` mode: no dates, no random document id), so one
description always gives the same bytes and the same SHA-256.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen.canvas import Canvas

#: Landscape A4, as the curriculum documents are printed (841.92 x 595.32 pt).
PAGE_WIDTH, PAGE_HEIGHT = 841.92, 595.32
MARGIN = 40.0
REGULAR, BOLD = "Helvetica", "Helvetica-Bold"
SIZE = 10.0
LEADING = 13.0
HEADING_SIZE = 11.0
HEADING_LEADING = 16.0
PAD = 4.0
#: Column widths: a narrow content-standards column, a wide indicators column, the competencies.
COLUMN_WIDTHS = (170.0, 380.0, PAGE_WIDTH - 2 * MARGIN - 170.0 - 380.0)
NACCA_HEADER = ("CONTENT STANDARDS", "INDICATORS AND EXEMPLARS", "SUBJECT SPECIFIC PRACTICES AND CORE COMPETENCIES")
COPYRIGHT = "© NaCCA, Ministry of Education 2019"
BULLET = "•"
#: The bullet is drawn in the Symbol font, as a word processor sets a list's bullet (and reportlab's Helvetica
#: would encode U+2022 as the undefined WinAnsi code 0x7F, which pdfminer reads back as "(cid:127)").
BULLET_FONT = "Symbol"
#: The hanging indent of a bulleted paragraph: its text, and its wrapped lines, start here.
BULLET_INDENT = 10.0
TITLE_LINES = (
    "MINISTRY OF EDUCATION",
    "REPUBLIC OF GHANA",
    "ENGLISH LANGUAGE",
    "CURRICULUM FOR PRIMARY SCHOOLS",
    "(BASIC 1 - 3)",
    "SEPTEMBER 2019",
)
#: The lowest a table may reach (from the page's top): above the footer, which the importer reads as furniture.
TABLE_FLOOR = PAGE_HEIGHT - 60.0


@dataclass(frozen=True, slots=True)
class Para:
    """One paragraph of a cell: wrapped to the cell's width; a bulleted one prints its bullet on its first line.

    ``line`` starts it on that line of the cell (blank lines before it), to print it level with a line of the
    next cell; ``drop`` lowers it, and the rest of the cell, by that many points (lines of two cells that do
    not share baselines, as a typesetter's separate text boxes leave them).
    """

    text: str
    bold: bool = False
    bullet: bool = False
    line: int | None = None
    drop: float = 0.0


def bold(text: str) -> Para:
    """A bold paragraph: a code with its statement, or a statement's continuation."""
    return Para(text, bold=True)


def plain(text: str) -> Para:
    """A regular paragraph: an "E.g." or "Note:" line, a competency, or stray text."""
    return Para(text)


def bullet(text: str) -> Para:
    """A regular bulleted paragraph: one exemplar."""
    return Para(text, bullet=True)


@dataclass(frozen=True, slots=True)
class Row:
    """One ruled table row: the cells of the three columns, each a sequence of paragraphs.

    ``widths`` rules the row's own column widths (default :data:`COLUMN_WIDTHS`): a row whose vertical rules
    do not line up with its neighbours'.
    """

    standard: Sequence[Para] = ()
    indicators: Sequence[Para] = ()
    competencies: Sequence[Para] = ()
    widths: Sequence[float] | None = None
    #: A fourth column between the indicators and the competencies (Our World and Our People's layout); its
    #: row then needs its four ``widths``, and its page a four-cell header.
    exemplars: Sequence[Para] | None = None


@dataclass(frozen=True, slots=True)
class Page:
    """One curriculum page: heading lines, then a ruled table (with or without its header row), then the footer.

    ``header`` is the header row's texts, or ``None`` for a table that continues the previous page's;
    ``header_widths`` rules the header row's own column widths (default :data:`COLUMN_WIDTHS`).
    """

    rows: Sequence[Row]
    headings: Sequence[str] = ()
    header: Sequence[str] | None = NACCA_HEADER
    header_widths: Sequence[float] | None = None
    printed: str | None = None
    running_header: str | None = None
    copyright: bool = True


@dataclass(slots=True)
class WrittenPdf:
    """A written PDF: its path, its bytes, and every paragraph's printed lines (by paragraph text)."""

    path: Path
    data: bytes
    wrapped: dict[str, list[str]] = field(default_factory=dict)

    def lines_of(self, text: str) -> list[str]:
        """The lines a paragraph was printed on."""
        return self.wrapped[text]


def _wrap(para: Para, width: float) -> list[str]:
    """A paragraph's text as printed lines (a bulleted one with a hanging indent, its bullet drawn apart)."""
    font = BOLD if para.bold else REGULAR
    lines: list[str] = simpleSplit(para.text, font, SIZE, width - 2 * PAD - (BULLET_INDENT if para.bullet else 0.0))
    return lines


@dataclass(frozen=True, slots=True)
class _Placed:
    """A paragraph placed in its cell: its printed lines, the cell line it starts on, and how far it is lowered."""

    para: Para
    lines: list[str]
    first: int
    drop: float


def _place(paras: Sequence[Para], width: float) -> list[_Placed]:
    """A cell's paragraphs one after another, each from its ``line`` (if later) and lowered by every ``drop``."""
    placed: list[_Placed] = []
    count, drop = 0, 0.0
    for para in paras:
        if para.line is not None:
            if para.line < count:
                raise ValueError(f"paragraph {para.text!r} cannot start on line {para.line}: line {count} is next")
            count = para.line
        drop += para.drop
        lines = _wrap(para, width)
        placed.append(_Placed(para, lines, count, drop))
        count += len(lines)
    return placed


def _depth(paras: Sequence[Para], width: float) -> float:
    """How far down a cell its paragraphs reach (points below the cell's padding)."""
    return max((LEADING * (p.first + len(p.lines)) + p.drop for p in _place(paras, width)), default=0.0)


class _Writer:
    """Draws pages onto one canvas, keeping a top-down cursor (pdfplumber measures from the top)."""

    def __init__(self, path: Path) -> None:
        self.canvas = Canvas(str(path), pagesize=(PAGE_WIDTH, PAGE_HEIGHT), invariant=1, pageCompression=0)
        self.wrapped: dict[str, list[str]] = {}

    def text(self, x: float, top: float, text: str, font: str, size: float, align: str = "left") -> None:
        """Text whose baseline sits ``size`` below ``top`` (a top-down position), placed from ``x`` by ``align``."""
        self.canvas.setFont(font, size)
        baseline = PAGE_HEIGHT - top - size
        draw = {
            "left": self.canvas.drawString,
            "centre": self.canvas.drawCentredString,
            "right": self.canvas.drawRightString,
        }[align]
        draw(x, baseline, text)

    def rule(self, x0: float, top: float, x1: float, bottom: float) -> None:
        """One ruling line (horizontal or vertical), in top-down coordinates."""
        self.canvas.line(x0, PAGE_HEIGHT - top, x1, PAGE_HEIGHT - bottom)

    def footer(self, printed: str | None, copyright: bool) -> None:
        """The © line at the bottom left and the page number at the bottom centre, on one baseline."""
        top = PAGE_HEIGHT - 30.0
        if copyright:
            self.text(MARGIN, top, COPYRIGHT, REGULAR, 9.0)
        if printed is not None:
            self.text(PAGE_WIDTH / 2, top, printed, REGULAR, 9.0, align="centre")

    def title_page(self, lines: Sequence[str]) -> None:
        """The title page: centred bold lines (the importer reads the framework's name and id from them)."""
        top = 150.0
        for index, line in enumerate(lines):
            size = 20.0 if index in (2, 3) else 14.0
            self.text(PAGE_WIDTH / 2, top, line, BOLD, size, align="centre")
            top += size + 14.0
        self.footer(None, copyright=True)
        self.canvas.showPage()

    def cell(self, x: float, top: float, width: float, paras: Sequence[Para]) -> None:
        """Write one cell's paragraphs where :func:`_place` puts them."""
        for placed in _place(paras, width):
            para = placed.para
            self.wrapped[para.text] = placed.lines
            indent = BULLET_INDENT if para.bullet else 0.0
            first = top + PAD + placed.first * LEADING + placed.drop
            if para.bullet:
                self.text(x + PAD, first, BULLET, BULLET_FONT, SIZE)
            for index, line in enumerate(placed.lines):
                self.text(x + PAD + indent, first + index * LEADING, line, BOLD if para.bold else REGULAR, SIZE)

    def height(self, cells: Sequence[Sequence[Para]], widths: Sequence[float]) -> float:
        """A row's height: its fullest cell's lines, padded (the ruling must enclose every line it owns)."""
        depth = max((_depth(cell, w) for cell, w in zip(cells, widths, strict=True)), default=0.0)
        return 2 * PAD + max(depth, LEADING)

    def row(self, top: float, cells: Sequence[Sequence[Para]], widths: Sequence[float] | None = None) -> float:
        """One ruled row with every border drawn (at ``widths``, default :data:`COLUMN_WIDTHS`); the row's bottom."""
        widths = COLUMN_WIDTHS if widths is None else tuple(widths)
        if abs(sum(widths) - sum(COLUMN_WIDTHS)) > 0.01:
            raise ValueError(f"a row's widths must fill the table's width ({sum(COLUMN_WIDTHS):.2f} pt)")
        bottom = top + self.height(cells, widths)
        if bottom > TABLE_FLOOR:
            raise ValueError(f"the table runs into the footer (row bottom {bottom:.0f} pt): split it over pages")
        x = MARGIN
        self.rule(MARGIN, top, PAGE_WIDTH - MARGIN, top)
        self.rule(MARGIN, bottom, PAGE_WIDTH - MARGIN, bottom)
        for cell, width in zip(cells, widths, strict=True):
            self.cell(x, top, width, cell)
            self.rule(x, top, x, bottom)
            x += width
        self.rule(x, top, x, bottom)
        return bottom

    def page(self, page: Page) -> None:
        """One curriculum page, top to bottom: running header, headings, the ruled table, the footer."""
        self.canvas.setLineWidth(0.75)
        top = MARGIN
        if page.running_header is not None:
            self.text(PAGE_WIDTH - MARGIN, top, page.running_header, REGULAR, 9.0, align="right")
            top += 2 * LEADING
        for heading in page.headings:
            self.text(PAGE_WIDTH / 2, top, heading, BOLD, HEADING_SIZE, align="centre")
            top += HEADING_LEADING
        top += 6.0
        if page.header is not None:
            top = self.row(top, [[bold(text)] for text in page.header], page.header_widths)
        for row in page.rows:
            cells = [
                row.standard,
                row.indicators,
                *([row.exemplars] if row.exemplars is not None else []),
                row.competencies,
            ]
            top = self.row(top, cells, row.widths)
        self.footer(page.printed, page.copyright)
        self.canvas.showPage()


def write_curriculum_pdf(path: Path, pages: Sequence[Page], title: Sequence[str] | None = TITLE_LINES) -> WrittenPdf:
    """A curriculum PDF: the title page (unless ``title`` is ``None``), then ``pages`` in order."""
    writer = _Writer(path)
    if title is not None:
        writer.title_page(title)
    for page in pages:
        writer.page(page)
    writer.canvas.save()
    return WrittenPdf(path, path.read_bytes(), writer.wrapped)


def write_letter_pdf(path: Path, lines: Sequence[str]) -> WrittenPdf:
    """A one-page portrait letter: lines of text and nothing else (no title page, no table)."""
    _width, height = A4
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setFont(REGULAR, 11.0)
    for index, line in enumerate(lines):
        canvas.drawString(72.0, height - 90.0 - index * 15.0, line)
    canvas.showPage()
    canvas.save()
    return WrittenPdf(path, path.read_bytes())
