# ruff: noqa: RUF001  (Japanese curriculum text is written with full-width digits, commas and brackets)
"""MEXT's three real code tables, as the default catalog builds them, checked against a second reader.

The second reader is the workbook's own XML (``zipfile`` + ElementTree: the shared strings and the sheet's
cells), not openpyxl: a statement whose text, code or subject the importer took from the wrong cell or
changed in any way is not found there. The tables ship with the project (Public Data License v1.0), so
these tests always run.
"""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

import pytest
from package_view import PackageView, open_package

from kgfegmcp.core.config import SHIPPED_DIR

TABLES = SHIPPED_DIR / "sources" / "japan-mext"
MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
#: Table file → (framework id, rows, items per statement type).
EXPECTED = {
    "82V11-elementary.xlsx": (
        "japan-mext-course-of-study-elementary",
        3747,
        {"事項": 3561, "項目": 95, "学年": 50, "大項目": 20, "節": 10, "章": 6, "分野・科目": 5},
    ),
    "83V11-lower-secondary.xlsx": (
        "japan-mext-course-of-study-lower-secondary",
        2190,
        {"事項": 2050, "項目": 66, "大項目": 35, "学年": 13, "分野・科目": 12, "節": 9, "章": 5},
    ),
    "84V10-upper-secondary.xlsx": (
        "japan-mext-course-of-study-upper-secondary",
        10950,
        {"事項": 9688, "項目": 860, "分野・科目": 288, "款": 79, "節": 24, "大項目": 6, "章": 5},
    ),
}
SAMPLE = 40


def _text(element: ElementTree.Element) -> str:
    """A shared string's text: its runs joined, phonetic guides (rPh) left out."""
    runs = [element.find(f"{MAIN}t")] if element.find(f"{MAIN}t") is not None else []
    runs += [run.find(f"{MAIN}t") for run in element.findall(f"{MAIN}r")]
    return "".join((run.text or "") for run in runs if run is not None)


def sheet_rows(path: Path) -> dict[int, dict[str, str]]:
    """Every row of the workbook's one sheet: row number → column letter → cell text."""
    with zipfile.ZipFile(path) as archive:
        shared = [_text(si) for si in ElementTree.fromstring(archive.read("xl/sharedStrings.xml"))]
        (sheet_name,) = [n for n in archive.namelist() if n.startswith("xl/worksheets/sheet")]
        sheet = ElementTree.fromstring(archive.read(sheet_name))
    rows: dict[int, dict[str, str]] = {}
    for row in sheet.iter(f"{MAIN}row"):
        cells: dict[str, str] = {}
        for cell in row.findall(f"{MAIN}c"):
            column = "".join(ch for ch in cell.get("r", "") if ch.isalpha())
            value = cell.find(f"{MAIN}v")
            if cell.get("t") == "s" and value is not None and value.text is not None:
                cells[column] = shared[int(value.text)]
            elif cell.get("t") == "inlineStr":
                inline = cell.find(f"{MAIN}is")
                cells[column] = _text(inline) if inline is not None else ""
            elif value is not None and value.text is not None:
                cells[column] = value.text
        rows[int(row.get("r", "0"))] = cells
    return rows


@pytest.fixture(scope="module")
def built(default_catalog_root: Path) -> dict[str, PackageView]:
    return {name: open_package(default_catalog_root, fw) for name, (fw, _, _) in EXPECTED.items()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_row_is_an_item_and_the_types_are_counted(built: dict[str, PackageView], name: str) -> None:
    _, rows, types = EXPECTED[name]
    view = built[name]
    assert len(view.items) == rows
    assert Counter(item.statement_type for item in view.items) == types
    assert len(view.item_by_code()) == rows  # one item per code, every code unique


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_forty_statements_are_exactly_the_sheets_text_code_and_subject(
    built: dict[str, PackageView], name: str
) -> None:
    view = built[name]
    sheet = sheet_rows(TABLES / name)
    items = sorted(view.items, key=lambda item: view.provenance[item.identifier]["locator"]["row"])
    step = len(items) // SAMPLE
    sample = items[::step][:SAMPLE]
    assert len(sample) == SAMPLE
    for item in sample:
        row = view.provenance[item.identifier]["locator"]["row"]
        cells = sheet[row]
        assert (item.description, item.statement_code, item.academic_subject) == (cells["C"], cells["D"], cells["A"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_grade_heading_carries_the_grade_it_prints(built: dict[str, PackageView], name: str) -> None:
    view = built[name]
    headings = [item for item in view.items if item.description.startswith("〔第") and "学年〕" in item.description]
    if name.startswith("84"):
        assert headings == [] and all(item.grade_level == () for item in view.items)
        return
    assert headings
    for item in headings:
        printed = item.description[1 : item.description.index("〕")]
        for grade in item.grade_level:
            assert grade[1] in printed.replace("第", "").replace("学年", ""), (item.statement_code, printed)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_parents_precede_their_children_but_for_the_codes_mext_misprinted(
    built: dict[str, PackageView], name: str
) -> None:
    view = built[name]
    row_of = {item.identifier: view.provenance[item.identifier]["locator"]["row"] for item in view.items}
    placed_by: Counter[str] = Counter()
    late = []
    for edge in view.edges("hasChild"):
        placed_by[view.provenance[edge.identifier]["derivation"]["placedBy"]] += 1
        parent = row_of.get(edge.source_identifier)
        if parent is not None and parent > row_of[edge.target_identifier]:
            late.append(view.nodes[edge.target_identifier].statement_code)
    assert sorted(late) == (["8455505324000000", "84B8505312000000"] if name.startswith("84") else [])
    assert placed_by["chapter"] == 0
    assert placed_by["code"] + placed_by["list"] > 0.98 * len(view.items)


def test_the_kanji_table_is_one_list_per_grade(built: dict[str, PackageView]) -> None:
    view = built["82V11-elementary.xlsx"]
    items = view.item_by_code()
    first_grade = items["8210010110000000"]
    assert first_grade.description == "第一学年（80字）"
    children = [r.target_identifier for r in view.edges("hasChild") if r.source_identifier == first_grade.identifier]
    assert len(children) == 80
    assert all(len(view.nodes[child].description) == 1 for child in children)
