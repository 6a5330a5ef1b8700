"""A code table as read: its title, and one row per text unit (subject, number, text, code) in sheet order.

The header row is found by its marker cell, not by position (MEXT's tables put it on row 3 while their
description says row 2, and move the title between A1 and B1); columns are found by their header text. A
cell's text is kept exactly as the sheet has it (line breaks, ideographic spaces, padding); the digit
columns that repeat the code one character per cell are not read, the code column is the one source of
the code. What cannot be read as the layout says is a ``manifest_build_error`` naming the sheet and row.
"""

from __future__ import annotations

import hashlib
import io
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.sources.code_table.layout import CodeTableLayout

#: Rows searched for the header marker and the title above it.
HEADER_SEARCH_ROWS = 20
#: The largest table file read (MEXT's largest is 1.2 MB).
MAX_TABLE_BYTES = 64 * 1024 * 1024
#: The most an .xlsx may unpack to (MEXT's largest unpacks to 9 MB): an .xlsx is a zip, and a small one can
#: declare gigabytes of sheet XML, which openpyxl would read whole. zipfile never reads past a member's
#: declared size, so the declared sizes bound what is read.
MAX_TABLE_UNPACKED_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class CodeRow:
    """One text unit: where it is in the sheet and what the sheet says."""

    sheet_row: int
    subject: str
    number: int
    text: str
    code: str


@dataclass(frozen=True, slots=True)
class CodeTable:
    """One sheet of a code table: its identity and rows in sheet (document) order."""

    file_name: str
    sha256: str
    sheet: str
    title: str
    table_id: str
    name: str
    version: str
    header_row: int
    rows: tuple[CodeRow, ...]
    #: Rows whose code the sheet stores as a number (kept as its digits): sheet rows.
    numeric_codes: tuple[int, ...]


def _squeeze(value: object) -> str:
    return "".join(str(value).split()) if value is not None else ""


def read_code_table(path: Path, layout: CodeTableLayout) -> CodeTable:
    """Read the one sheet of ``path`` that holds a table in ``layout``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ManifestBuildError(f"{path.name} cannot be read: {exc.strerror or exc}.") from None
    if len(data) > MAX_TABLE_BYTES:
        raise ManifestBuildError(f"{path.name} exceeds {MAX_TABLE_BYTES // (1024 * 1024)} MiB.")
    unpacked = _unpacked_size(data)
    if unpacked > MAX_TABLE_UNPACKED_BYTES:
        raise ManifestBuildError(
            f"{path.name} unpacks to {unpacked:,} bytes, over the {MAX_TABLE_UNPACKED_BYTES // (1024 * 1024)} MiB "
            "a code table is read at.",
            hint="Give the code table as the .xlsx file the publisher releases.",
        )
    with warnings.catch_warnings():
        # Print settings openpyxl cannot parse (MEXT's header/footer, a print area by defined name) are not
        # content; its warnings about them say nothing about the table.
        warnings.simplefilter("ignore", UserWarning)
        return _read_workbook(path.name, data, layout)


def _unpacked_size(data: bytes) -> int:
    """What the workbook's members declare they unpack to (0 for a file that is not a zip: openpyxl says so)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return sum(member.file_size for member in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return 0


def _read_workbook(file_name: str, data: bytes, layout: CodeTableLayout) -> CodeTable:
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises zipfile, XML and its own errors for a file that is not xlsx
        raise ManifestBuildError(
            f"{file_name} is not a readable .xlsx workbook ({type(exc).__name__}).",
            hint="Give the code table as the .xlsx file the publisher releases.",
        ) from None
    try:
        found = []
        for sheet in workbook.worksheets:
            head = [list(row) for row in sheet.iter_rows(max_row=HEADER_SEARCH_ROWS, values_only=True)]
            header = next((i for i, row in enumerate(head) if layout.header_marker in map(_squeeze, row)), None)
            if header is not None:
                found.append((sheet, head, header))
        if len(found) != 1:
            raise ManifestBuildError(
                f"{file_name}: {len(found)} sheets have a header row with {layout.header_marker!r}; "
                "one table per file is read.",
                hint="Give one table per file, as the publisher releases them.",
            )
        sheet, head, header = found[0]
        return _read_sheet(file_name, hashlib.sha256(data).hexdigest(), sheet, head, header, layout)
    finally:
        workbook.close()


def _read_sheet(
    file_name: str, sha256: str, sheet: Any, head: list[list[Any]], header: int, layout: CodeTableLayout
) -> CodeTable:
    where = f"{file_name} sheet {sheet.title!r}"
    names = [_squeeze(cell) for cell in head[header]]
    columns: dict[str, int] = {}
    for role, label in layout.columns.model_dump().items():
        wanted = _squeeze(label)
        if names.count(wanted) != 1:
            raise ManifestBuildError(
                f"{where}: the header row (row {header + 1}) has {names.count(wanted)} {label!r} columns, not one."
            )
        columns[role] = names.index(wanted)
    title = _title(where, head[:header], layout)
    match = layout.title_pattern.match(title)
    assert match is not None
    rows: list[CodeRow] = []
    numeric: list[int] = []
    first = header + 2  # 1-based sheet row of the first data row
    for offset, values in enumerate(sheet.iter_rows(min_row=first, values_only=True)):
        sheet_row = first + offset
        cells = list(values) + [None] * (len(names) - len(values))
        if all(cell is None or (isinstance(cell, str) and not cell.strip()) for cell in cells):
            continue
        row, was_number = _row(where, sheet_row, cells, columns, layout)
        rows.append(row)
        if was_number:
            numeric.append(sheet_row)
    if not rows:
        raise ManifestBuildError(f"{where} has a header row but no rows below it.")
    return CodeTable(
        file_name=file_name,
        sha256=sha256,
        sheet=str(sheet.title),
        title=title,
        table_id=match["table"],
        name=match["name"],
        version=match["version"],
        header_row=header + 1,
        rows=tuple(rows),
        numeric_codes=tuple(numeric),
    )


def _title(where: str, above: list[list[Any]], layout: CodeTableLayout) -> str:
    """The first cell above the header that reads as the layout's table title."""
    cells = [cell for row in above for cell in row if isinstance(cell, str) and cell.strip()]
    for cell in cells:
        if layout.title_pattern.match(cell):
            return cell
    raise ManifestBuildError(
        f"{where}: no cell above the header row reads as a table title ({layout.table_title}); "
        f"found {[c[:60] for c in cells[:4]]}.",
        hint="The title names the table id, e.g. 【82V11】…コード表 Ver 1.1.",
    )


def _row(
    where: str, sheet_row: int, cells: list[Any], columns: dict[str, int], layout: CodeTableLayout
) -> tuple[CodeRow, bool]:
    subject, number, text, code = (cells[columns[role]] for role in ("subject", "number", "text", "code"))
    at = f"{where} row {sheet_row}"
    was_number = False
    if isinstance(code, int) and not isinstance(code, bool) and len(str(code)) == layout.code.length:
        code, was_number = str(code), True
    if not isinstance(code, str) or len(code) != layout.code.length or not layout.code_pattern.match(code):
        raise ManifestBuildError(
            f"{at}: the code {code!r} is not {layout.code.length} characters matching {layout.code.alphabet}."
        )
    if not isinstance(text, str) or not text.strip():
        raise ManifestBuildError(f"{at} ({code}): the text cell is {'empty' if not text else type(text).__name__}.")
    if not isinstance(subject, str) or not subject.strip():
        raise ManifestBuildError(f"{at} ({code}): the subject cell is empty.")
    if isinstance(number, bool) or not isinstance(number, int):
        raise ManifestBuildError(f"{at} ({code}): the number cell {number!r} is not a whole number.")
    return CodeRow(sheet_row=sheet_row, subject=subject, number=number, text=text, code=code), was_number
