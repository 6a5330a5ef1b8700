"""The statements of a curriculum PDF, assembled from its pages in reading order.

Headings set the context (grade, strand, sub-strand); in each table, a line that begins with a code
begins a statement, and every line after it, in the same column, down the page and over the page break,
belongs to it until the next code. An indicator's statement is its first run of lines in one font weight;
the lines after it (bullets, "E.g.", notes) are its exemplars. A content standard repeated at the top of a
page ("CONT'D") is the same statement, read on one more page. What cannot be placed, and every code that
breaks its own sequence, becomes a finding naming the page: nothing is dropped in silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.sources.curriculum_pdf.layout import CurriculumPdfLayout, Level
from kgfegmcp.sources.curriculum_pdf.pages import Line, PageHeading, PageTable, PdfPage, TableRow

#: A following line is part of a statement only if it is at most this many line heights below the last.
MAX_LINE_GAP = 1.9
_SPACE = re.compile(r"\s+")
_SOFT_HYPHEN = "\u00ad"
_PRIVATE_USE, _PRIVATE_USE_END = 0xE000, 0xF8FF


@dataclass(frozen=True, slots=True)
class SourceFinding:
    """Something the build reports about the document (a warning unless said otherwise)."""

    code: FindingCode
    message: str
    page: int | None = None
    severity: str = "warning"


@dataclass(slots=True)
class Heading:
    """A strand or sub-strand heading as printed, with where it was read."""

    number: int | None  # None: the heading prints no number (the codes below it give one)
    name: str
    page: int
    printed: str | None


@dataclass(slots=True)
class Statement:
    """One content standard or indicator, as printed: code, text lines, pages, and what goes with it."""

    level: Level
    code: str
    printed_code: str
    groups: dict[str, str]
    grade: str
    lines: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    printed_pages: list[str] = field(default_factory=list)
    exemplars: list[str] = field(default_factory=list)
    competencies: list[str] = field(default_factory=list)
    strand: Heading | None = None
    sub_strand: Heading | None = None
    parent: Statement | None = None
    last_indicator: Statement | None = None  # of a content standard: the indicator read last under it
    occurrence: int = 1
    bold: bool = False
    open_text: bool = True  # still reading the statement's own lines (not yet its exemplars)
    last_bottom: float = 0.0
    last_height: float = 0.0

    @property
    def text(self) -> str:
        """The statement's lines as one text: wrapped lines joined, a hyphen at a line's end kept unspaced."""
        return join_lines(self.lines)

    @property
    def key(self) -> str:
        """A stable key: the level, the code, and which printing of that code it is."""
        return f"{self.level}/{self.code}" + (f"#{self.occurrence}" if self.occurrence > 1 else "")

    def below(self, line: Line) -> None:
        """Note the line just read as the statement's own: the next must follow it closely to be its text too."""
        self.last_bottom, self.last_height = line.bottom, line.bottom - line.top

    def seen_on(self, page: int, printed: str | None) -> None:
        if page not in self.pages:
            self.pages.append(page)
            if printed is not None:
                self.printed_pages.append(printed)


def join_lines(lines: Iterable[str]) -> str:
    """Wrapped lines as one text: single spaces; a soft hyphen at a line's end removed and the word joined; a
    hard hyphen at a line's end kept and joined without a space (these documents are not hyphenated by the
    typesetter, so a hyphen there is the word's own: "multi-" + "digit")."""
    text = ""
    for raw in lines:
        line = _SPACE.sub(" ", raw).strip()
        if not line:
            continue
        if not text:
            text = line
        elif text.endswith(_SOFT_HYPHEN):
            text = text[:-1] + line
        elif text.endswith("-") and not text.endswith(" -"):
            text += line
        else:
            text += " " + line
    return text.replace(_SOFT_HYPHEN, "")


def comparable(text: str) -> str:
    """Letters and digits only, casefolded: how two printings of one statement are compared."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


@dataclass(slots=True)
class CurriculumDocument:
    """What a curriculum PDF holds, in reading order, and what its reading found."""

    statements: list[Statement] = field(default_factory=list)
    findings: list[SourceFinding] = field(default_factory=list)
    tables: int = 0

    def content_standards(self) -> list[Statement]:
        """Content standards, in reading order."""
        return [s for s in self.statements if s.level == "contentStandard"]

    def indicators(self) -> list[Statement]:
        """Indicators, in reading order."""
        return [s for s in self.statements if s.level == "indicator"]


class StatementAssembler:
    """Reads pages in order into a :class:`CurriculumDocument`; one instance per document."""

    def __init__(self, layout: CurriculumPdfLayout) -> None:
        self._layout = layout
        self._headings = (
            ("grade", re.compile(layout.headings.grade, re.IGNORECASE)),
            ("strand", re.compile(layout.headings.strand, re.IGNORECASE)),
            ("subStrand", re.compile(layout.headings.sub_strand, re.IGNORECASE)),
        )
        self._bullets = tuple(layout.bullets)
        self._exemplar_start = re.compile(layout.exemplar_start)
        self._continued = re.compile(layout.continuation_marker, re.IGNORECASE)
        self.document = CurriculumDocument()
        self._grade_year: str | None = None
        self._strand: Heading | None = None
        self._sub_strand: Heading | None = None
        self._last_heading: Heading | None = None
        self._last_heading_bottom = 0.0
        self._standard: Statement | None = None
        self._indicator: Statement | None = None
        self._by_key: dict[tuple[Level, str], list[Statement]] = {}
        self._page = 0
        self._printed: str | None = None
        self._headed = False  # a table with a header row of the layout has been read
        self._pending: dict[tuple[str, str], tuple[int, int]] = {}  # unplaced text of this page, by column
        self._orphans: list[str] = []  # indicators of this page read before any content standard
        self._foreign = False  # text that is no heading was printed since the last table

    # -- pages -----------------------------------------------------------------------------------

    def read(self, pages: Iterable[PdfPage]) -> CurriculumDocument:
        """Every page, in order."""
        for page in pages:
            self._page, self._printed = page.number, page.printed
            for block in page.blocks:
                if isinstance(block, PageHeading):
                    self._heading_line(block.line)
                else:
                    self._table(block)
            self._flush()
        return self.document

    def _unplaced(self, column: str, text: str, what: str) -> None:
        """Count text that follows no code; one finding per page and column says how much (:meth:`_flush`)."""
        lines, count = self._pending.get((column, what), (0, 0))
        self._pending[(column, what)] = (lines + 1, count + len(text.split()))

    def _flush(self) -> None:
        if self._orphans:
            self._finding(
                FindingCode.SOURCE_MAPPING_GAP,
                f"{len(self._orphans)} indicator(s) on {self._where()} follow no content standard and hang from "
                f"their sub-strand: {', '.join(self._orphans)}.",
            )
            self._orphans.clear()
        for (column, what), (lines, count) in sorted(self._pending.items()):
            self._finding(
                FindingCode.SOURCE_MAPPING_GAP,
                f"{lines} line(s) of text ({count} words) in the {column} column on {self._where()} follow no "
                f"{what} and were not placed.",
            )
        self._pending.clear()

    def _finding(self, code: FindingCode, message: str, severity: str = "warning") -> None:
        self.document.findings.append(SourceFinding(code, message, self._page, severity))

    def _where(self) -> str:
        return f"p. {self._page}" + (f" (printed {self._printed})" if self._printed else "")

    # -- headings --------------------------------------------------------------------------------

    def _heading_line(self, line: Line) -> bool:
        """Read a line as a heading; ``False`` when it is none (a wrapped heading's second line is one)."""
        text = _SPACE.sub(" ", line.text).strip()
        for kind, pattern in self._headings:
            match = pattern.fullmatch(text)
            if match is None:
                continue
            if kind == "grade":
                self._grade_year = match["year"]
                self._last_heading = None
                return True
            number = int(match["number"]) if match["number"] else None
            heading = Heading(number, match["name"].strip(), self._page, self._printed)
            current = self._strand if kind == "strand" else self._sub_strand
            if current is not None and _same_heading(current, heading):
                self._last_heading, self._last_heading_bottom = None, line.bottom
                return True  # the same heading printed again over a continued table
            if kind == "strand":
                self._strand, self._sub_strand = heading, None
            else:
                self._sub_strand = heading
            self._last_heading, self._last_heading_bottom = heading, line.bottom
            self._standard = self._indicator = None
            return True
        previous = self._last_heading
        if previous is not None and previous.page == self._page and 0 <= line.top - self._last_heading_bottom < 8:
            previous.name = f"{previous.name} {text}"  # a heading wrapped onto a second line
            self._last_heading_bottom = line.bottom
            return True
        self._last_heading = None
        self._foreign = True
        return False

    # -- tables ----------------------------------------------------------------------------------

    def _table(self, table: PageTable) -> None:
        foreign, self._foreign = self._foreign, False
        if table.continued and (foreign or not self._headed or all(r is None for _a, _b, r in table.header)):
            # No header row, and other text (or no table of the layout) before it: not a continued table of
            # statements. The codes it prints, if any, are reported (an illustration in the front matter too).
            self._unread(table)
            return
        self._headed = True
        self.document.tables += 1
        self._last_heading = None
        for row in table.rows:
            if row.spanning:
                for line in (line for _role, cell in row.cells for line in cell):
                    if not self._heading_line(line) and line.text.strip():
                        self._finding(
                            FindingCode.SOURCE_MAPPING_GAP,
                            f"A row spanning the table on {self._where()} is not a heading the layout knows and "
                            f"was not read ({words(line.text)}).",
                        )
                continue
            self._row(row)

    def _unread(self, table: PageTable) -> None:
        """Report the statement codes of a table that is not read (none: nothing to report)."""
        codes = []
        for row in table.rows:
            for _role, lines in row.cells:
                for line in lines:
                    text = self._strip_bullet(_SPACE.sub(" ", line.text).strip())[0]
                    levels: tuple[tuple[re.Pattern[str], Level], ...] = (
                        (self._layout.indicator_code, "indicator"),
                        (self._layout.content_standard_code, "contentStandard"),
                    )
                    for pattern, level in levels:
                        match = pattern.match(text)
                        if match is not None:
                            codes.append(self._code(match, level)[0])
                            break
        if codes:
            self._finding(
                FindingCode.SOURCE_MAPPING_GAP,
                f"A table on {self._where()} has no header row and follows other text, so it continues no table of "
                f"statements; its codes {', '.join(dict.fromkeys(codes))} were not read.",
            )

    def _row(self, row: TableRow) -> None:
        # A row may hold two content standards, each beside its indicators, and the two columns' lines need not
        # share baselines: an indicator goes under the row's content standard whose code it extends, else under
        # the last one printed at or above it, else under the one open before the row.
        before = self._standard
        begun: list[tuple[float, Statement]] = []
        for line in row.lines("contentStandard"):
            if self._standard_line(line) and self._standard is not None:
                begun.append((line.top, self._standard))
        after = self._standard
        started: list[tuple[float, Statement]] = []
        for line in row.lines("indicator"):
            self._standard = _parent_for(line, begun, before, self._layout.indicator_code)
            indicator = self._indicator_line(line)
            if indicator is not None:
                started.append((line.top, indicator))
        self._standard = after
        for line in row.lines("exemplar"):
            target = _owner(started, line.top) or self._indicator
            if target is not None:
                self._add_exemplar(target, _SPACE.sub(" ", line.text).strip())
        for line in row.lines("competency"):
            target = _owner(started, line.top) or self._indicator
            if target is not None:
                target.competencies.append(_SPACE.sub(" ", line.text).strip())

    def _strip_bullet(self, text: str) -> tuple[str, bool]:
        stripped = text.lstrip()
        had = False
        while (bullet := next((b for b in self._bullets if stripped.startswith(b)), None)) is not None:
            stripped = stripped[len(bullet) :].lstrip()
            had = True
        return stripped, had

    def _code_start(self, text: str, level: Level) -> str:
        """``text``, less one stray character printed before a code ('B B3.4.10.1.2.'), which is reported."""
        pattern = self._layout.indicator_code if level == "indicator" else self._layout.content_standard_code
        if pattern.match(text) or len(text) < 3 or text[1] != " " or text[0].isdigit():
            return text
        rest = text[2:]
        if pattern.match(rest) is None:
            return text
        self._finding(
            FindingCode.SOURCE_VARIANT_ACCEPTED,
            f"The code on {self._where()} is printed after a stray {text[0]!r}, read as a mark, not as text.",
            severity="info",
        )
        return rest

    def _item(self, text: str) -> str:
        """An exemplar line as printed; a bullet glyph of a symbol font (a private-use character, with no meaning
        of its own in Unicode) is written as the bullet it shows."""
        line = _SPACE.sub(" ", text).strip()
        body, had = self._strip_bullet(line)
        if not had:
            return body
        mark = line[: len(line) - len(body)].strip()
        return f"{'•' if any(_PRIVATE_USE <= ord(ch) <= _PRIVATE_USE_END for ch in mark) else mark} {body}"

    # -- content standards -----------------------------------------------------------------------

    def _standard_line(self, line: Line) -> bool:
        """Read one line of the content-standards column; whether it began (or repeated) a content standard."""
        text = self._code_start(self._strip_bullet(_SPACE.sub(" ", line.text).strip())[0], "contentStandard")
        bare = self._continued.sub("", text).strip()
        if not bare or any(p.fullmatch(bare) for p in self._layout.cell_label_patterns):
            return False  # "CONT'D" alone, or a heading's number labelling a continued table
        match = self._layout.content_standard_code.match(text)
        if match is None:
            stray = self._layout.indicator_code.match(text)
            if stray is not None and not text[stray.end() :].strip():
                printed = self._code(stray, "indicator")[0]
                self._finding(
                    FindingCode.SOURCE_MAPPING_GAP,
                    f"The indicator code {printed} is printed alone in the content-standards column on "
                    f"{self._where()}; it was left there (the indicator is read from the indicators column).",
                )
                return False
            if self._standard is None:
                if text:
                    self._unplaced("content-standards", text, "content-standard code")
                return False
            if self._standard.open_text:
                self._standard.lines.append(self._continued.sub("", text))
                self._standard.seen_on(self._page, self._printed)
            return False
        code, groups = self._code(match, "contentStandard")
        rest = self._continued.sub("", text[match.end() :]).strip()
        current = self._standard
        if current is not None and current.code == code:
            # The content standard read last, printed again over the next table ("CONT'D"): the same statement.
            if rest and not _same_text(current.text, rest):
                self._finding(
                    FindingCode.SOURCE_CODE_REPEATED,
                    f"{code} is printed again on {self._where()} over its continued table with other wording "
                    f"({words(rest)}); the first printing (p. {current.pages[0]}) is kept.",
                    severity="info",
                )
            return self._resume(current)
        repeat = self._repeat("contentStandard", code, rest)
        if repeat is not None:
            return self._resume(repeat)
        statement = self._new("contentStandard", code, match, groups, rest)
        self._check_headings(statement)
        self._standard = statement
        return True

    def _resume(self, standard: Statement) -> bool:
        """A content standard printed again is read on one more page, and its last indicator goes on there."""
        standard.seen_on(self._page, self._printed)
        standard.open_text = False
        self._standard = standard
        if self._indicator is None:
            self._indicator = standard.last_indicator
        return True

    # -- indicators ------------------------------------------------------------------------------

    def _indicator_line(self, line: Line) -> Statement | None:
        """Read one line of the indicators column; the indicator it starts, if it starts one."""
        raw = _SPACE.sub(" ", line.text).strip()
        text = self._code_start(self._strip_bullet(raw)[0], "indicator")
        match = self._layout.indicator_code.match(text)
        if match is not None:
            code, groups = self._code(match, "indicator")
            rest = text[match.end() :].strip()
            known = self._by_key.get(("indicator", code))
            if known and not comparable(rest):
                if self._indicator is None and known[-1].parent is self._standard:
                    self._indicator = known[-1]  # its code printed again over a continued table
                else:
                    self._exemplar_line(line, raw)  # a reference to an indicator printed before ("see B2.1.6.1.2.")
                return None
            repeat = self._repeat("indicator", code, rest)
            if repeat is not None:
                repeat.seen_on(self._page, self._printed)
                self._indicator = repeat
                repeat.open_text = False
                return repeat
            statement = self._new("indicator", code, match, groups, rest)
            statement.bold = line.bold_upto(len(raw))
            statement.below(line)
            statement.parent = self._standard
            if self._standard is None:
                self._orphans.append(code)
            else:
                self._standard.last_indicator = statement
                self._check_extends(statement, self._standard)
            self._indicator = statement
            return statement
        self._exemplar_line(line, raw)
        return None

    def _exemplar_line(self, line: Line, raw: str) -> None:
        indicator = self._indicator
        if indicator is None:
            if raw:
                self._unplaced("indicators", raw, "indicator code")
            return
        body, bullet = self._strip_bullet(raw)
        if indicator.open_text and self._continues(indicator, line, body, bullet):
            indicator.lines.append(body)
            indicator.seen_on(self._page, self._printed)
            indicator.below(line)
            return
        indicator.open_text = False
        indicator.seen_on(self._page, self._printed)
        self._add_exemplar(indicator, raw)

    def _add_exemplar(self, indicator: Statement, raw: str) -> None:
        """An exemplar line: a bullet or an example's start begins an item, any other line wraps the last one."""
        body, bullet = self._strip_bullet(raw)
        if bullet or self._exemplar_start.match(body) or not indicator.exemplars:
            indicator.exemplars.append(self._item(raw))
        else:
            indicator.exemplars[-1] = join_lines([indicator.exemplars[-1], body])

    def _continues(self, indicator: Statement, line: Line, body: str, bullet: bool) -> bool:
        """Whether a line goes on with the indicator's own text (rather than starting its exemplars)."""
        if bullet or not body or self._exemplar_start.match(body):
            return False
        if not indicator.lines:
            # The code stood alone on its line: its text is the next line, in whatever weight it is printed.
            indicator.bold = line.bold_upto(len(body))
            return True
        if line.bold_upto(len(body)) != indicator.bold:
            return False
        if line.page != indicator.pages[-1]:
            return True  # carried over the page break
        gap = line.top - indicator.last_bottom
        return gap <= MAX_LINE_GAP * max(indicator.last_height, 1.0)

    # -- shared ----------------------------------------------------------------------------------

    def _code(self, match: re.Match[str], level: Level) -> tuple[str, dict[str, str]]:
        """A matched code written the layout's way (``B1.1.6.1``), and its groups."""
        groups = {k: v for k, v in match.groupdict().items() if v is not None}
        return self._canonical(groups, level), groups

    def _canonical(self, groups: dict[str, str], level: Level) -> str:
        template = self._layout.codes.canonical_indicator if level == "indicator" else self._layout.codes.canonical
        return template.format(**{k: str(int(v)) if v.isdigit() else v for k, v in groups.items()})

    def _repeat(self, level: Level, code: str, rest: str) -> Statement | None:
        """The statement this printing repeats (same code, same text or none), or ``None`` when it is new."""
        known = self._by_key.get((level, code))
        if not known:
            return None
        for statement in known:
            if _same_text(statement.text, rest):
                return statement
        return None

    def _new(self, level: Level, code: str, match: re.Match[str], groups: dict[str, str], rest: str) -> Statement:
        grade = self._layout.grade_label(groups["grade"], groups["year"])
        assert grade is not None  # the code grammar only matches the layout's grade prefixes
        known = self._by_key.setdefault((level, code), [])
        statement = Statement(
            level=level,
            code=code,
            printed_code=match.group(0).rstrip(" .:;,"),
            groups=groups,
            grade=grade,
            lines=[rest] if rest else [],
            strand=self._strand,
            sub_strand=self._sub_strand,
            occurrence=len(known) + 1,
        )
        statement.seen_on(self._page, self._printed)
        if known:
            self._finding(
                FindingCode.SOURCE_CODE_REPEATED,
                f"{code} is printed again on {self._where()} with other text (first on p. {known[0].pages[0]}); "
                f"both are kept, the second as {statement.key}.",
            )
        known.append(statement)
        self.document.statements.append(statement)
        return statement

    def _check_headings(self, standard: Statement) -> None:
        """A content standard's code repeats its strand and sub-strand numbers: say so where it does not."""
        where = self._where()
        if self._grade_year is not None and standard.groups["year"] != self._grade_year:
            self._finding(
                FindingCode.SOURCE_CODE_OUTSIDE_PARENT,
                f"{standard.code} on {where} is printed under the heading of grade {self._grade_year}.",
            )
        for heading, group, noun in (
            (standard.strand, "strand", "Strand"),
            (standard.sub_strand, "subStrand", "Sub-Strand"),
        ):
            if heading is not None and heading.number is not None and int(standard.groups[group]) != heading.number:
                self._finding(
                    FindingCode.SOURCE_CODE_OUTSIDE_PARENT,
                    f"{standard.code} on {where} is printed under {noun} {heading.number} ({heading.name}); its "
                    f"code names {noun.lower()} {int(standard.groups[group])}. It is placed where it is printed.",
                )

    def _check_extends(self, indicator: Statement, standard: Statement) -> None:
        if not indicator.code.startswith(standard.code + "."):
            self._finding(
                FindingCode.SOURCE_CODE_OUTSIDE_PARENT,
                f"Indicator {indicator.code} on {self._where()} is printed under content standard {standard.code}, "
                f"whose code it does not extend. It is placed where it is printed.",
            )


def _same_heading(current: Heading, heading: Heading) -> bool:
    """Whether a heading repeats the one in force (same number and name, typography aside)."""
    return current.number == heading.number and comparable(current.name) == comparable(heading.name)


def _same_text(printed: str, again: str) -> bool:
    """Whether a second printing is the same text (or its beginning, or none): compared letters and digits only."""
    first, second = comparable(printed), comparable(again)
    return not second or first.startswith(second) or second.startswith(first)


def _parent_for(
    line: Line, begun: list[tuple[float, Statement]], before: Statement | None, indicator_code: re.Pattern[str]
) -> Statement | None:
    """The content standard an indicator line of a row goes under (see :meth:`StatementAssembler._row`)."""
    if not begun:
        return before
    match = indicator_code.match(line.text.lstrip(" \uf0b7•"))
    if match is not None:
        prefix = re.sub(r"\s", "", match.group(0)).rstrip(".:;,")
        for _top, standard in begun:
            if prefix.startswith(standard.code + "."):
                return standard
    above = [standard for top, standard in begun if top <= line.top + 2]
    return above[-1] if above else before


def _owner(started: list[tuple[float, Statement]], top: float) -> Statement | None:
    """The indicator a row's line beside it belongs to: the last one begun at or above it, else the row's first."""
    owner = None
    for start, statement in started:
        if start <= top + 2:
            owner = statement
    if owner is None and started:
        owner = started[0][1]
    return owner


def words(text: str) -> str:
    """How a finding describes source text: by its length, never by quoting it (the validation report is public
    metadata, served whatever the package's rights withhold)."""
    count = len(text.split())
    return f"{count} word{'s' if count != 1 else ''}"


def sequence_findings(document: CurriculumDocument) -> Iterator[SourceFinding]:
    """Gaps in code sequences: a content standard or indicator number skipped within its parent."""
    standards: dict[str, list[tuple[int, Statement]]] = {}
    indicators: dict[str, list[tuple[int, Statement]]] = {}
    for statement in document.statements:
        if statement.occurrence > 1:
            continue
        prefix, _, last = statement.code.rpartition(".")
        target = standards if statement.level == "contentStandard" else indicators
        target.setdefault(prefix, []).append((int(last), statement))
    for noun, groups in (("content standard", standards), ("indicator", indicators)):
        for prefix, members in groups.items():
            numbers = sorted({n for n, _s in members})
            missing = [n for n in range(1, numbers[-1] + 1) if n not in numbers]
            if missing:
                first = min(members, key=lambda pair: pair[0])[1]
                yield SourceFinding(
                    FindingCode.SOURCE_CODE_GAP,
                    f"No {noun} {', '.join(f'{prefix}.{n}' for n in missing)} is printed "
                    f"(the sequence under {prefix} has {', '.join(str(n) for n in numbers)}).",
                    first.pages[0],
                )
