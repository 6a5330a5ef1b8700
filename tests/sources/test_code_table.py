# ruff: noqa: RUF001, RUF003  (Japanese curriculum text is written with full-width digits, commas and brackets)
"""``--source mext-code-table``: code tables written here with each quirk of MEXT's, built, validated, read back."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import openpyxl
import pytest
from code_table_fixture import ELEMENTARY, UPPER_SECONDARY, write_table
from curriculum_pdf_support import write_and_validate
from package_view import PackageView, open_package, tree_digest

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.errors import ConfigurationError, ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources import load_importer
from kgfegmcp.sources.code_table.layout import load_code_table_layout
from kgfegmcp.sources.code_table.table import MAX_TABLE_UNPACKED_BYTES

ELEMENTARY_ID = "japan-mext-course-of-study-elementary"
UPPER_ID = "japan-mext-course-of-study-upper-secondary"


def build(path: Path, profiles_root: Path) -> PackageContent:
    (content,) = load_importer("mext-code-table").build(path, ProfileRepository(profiles_root))
    return content


@pytest.fixture(scope="module")
def elementary(tmp_path_factory: pytest.TempPathFactory, profiles_root: Path) -> PackageView:
    folder = tmp_path_factory.mktemp("mext")
    table = write_table(folder / "82V11.xlsx", ELEMENTARY, numeric_strings=True)
    write_and_validate([build(table, profiles_root)], profiles_root, folder / "packages")
    return open_package(folder / "packages", ELEMENTARY_ID)


@pytest.fixture(scope="module")
def upper(tmp_path_factory: pytest.TempPathFactory, profiles_root: Path) -> PackageView:
    folder = tmp_path_factory.mktemp("mext-upper")
    table = write_table(
        folder / "84V10.xlsx",
        UPPER_SECONDARY,
        table="84V10",
        name="高等学校学習指導要領（平成30年告示）",
        version="1.0",
        title_cell="A1",
    )
    write_and_validate([build(table, profiles_root)], profiles_root, folder / "packages")
    return open_package(folder / "packages", UPPER_ID)


def parent_code(view: PackageView, code: str) -> str | None:
    (parent,) = view.parents(view.item_by_code()[code].identifier)
    if parent == view.framework.identifier:
        return None
    found: str | None = view.nodes[parent].statement_code
    return found


def test_every_row_is_one_item_with_its_text_code_and_subject_exactly(elementary: PackageView) -> None:
    items = elementary.item_by_code()
    assert len(items) == len(ELEMENTARY)
    for subject, text, code in ELEMENTARY:
        assert items[code].description == text  # line breaks, ideographic spaces and trailing spaces kept
        assert items[code].academic_subject == subject
    assert elementary.manifest["snapshotId"] == "82v11"
    assert elementary.framework.name == "小学校学習指導要領（平成29年告示）"


ELEMENTARY_PARENTS = {
    "8200000000000000": None,  # 第１章 総則: the all-zero code is a chapter, not everyone's ancestor
    "8200000111000000": "8200000110000000",
    "82n0000000000000": None,  # 第２章: a top division by its heading
    "8210000000000000": "82n0000000000000",  # 第１節 under the chapter before it, not under 総則
    "8210010110000000": "8210000100000000",  # 第一学年 (grade 1) under 別表 (no grade)
    "8210010110090000": "8210010110000000",  # 花 (009)
    "8210010110100000": "8210010110000000",  # 貝 (010): the counter carries into the next digit
    "8210010110110000": "8210010110000000",  # 学 (011): a sibling of 貝, not its child
    "8210010110120000": "8210010110000000",
    "8250230000000000": "8250200000000000",  # 〔第３学年〕 under 第２ (grade digit zeroed)
    "8250233161200000": "8250233161000000",
    "82201L0000000000": "82200L0000000000",  # 第１ 目標 under the 節 that carries the range L
    "8220230000000000": "82202L0000000000",  # 〔第３学年〕 under the heading of grades 3-6 (L contains 3)
    "82702A3100000000": "82702A0000000000",  # no 項目 row: the next ancestor the table has
    "82K0000000000000": None,
    "82N1200000000000": "82N0200000000000",  # 分野 (digit 4) under 第２ (digit 5): levels nest 3 → 5 → 4
    "82N1220000000000": "82N1200000000000",
}


@pytest.mark.parametrize(("code", "parent"), sorted(ELEMENTARY_PARENTS.items()))
def test_the_hierarchy_follows_the_digits_as_mext_nests_them(
    elementary: PackageView, code: str, parent: str | None
) -> None:
    assert parent_code(elementary, code) == parent


def test_the_upper_secondary_courses_sit_under_the_division_that_lists_them(upper: PackageView) -> None:
    assert parent_code(upper, "8451500000000000") == "8450500000000000"  # 第１ 数学Ⅰ under 第２款 各科目
    assert parent_code(upper, "8450100000000000") == "8450000000000000"  # 第１款 placed by its code
    assert parent_code(upper, "84F0000000000000") == "84n0000000000000"
    assert parent_code(upper, "84F0300130000001") == "84F0300100000000"  # a revised row under its heading
    assert parent_code(upper, "8451505300000000") == "8451500000000000"


def test_a_heading_printed_with_stray_digits_is_placed_and_reported(upper: PackageView) -> None:
    assert parent_code(upper, "8451505324000000") == "8451505300000000"
    edge = next(
        r for r in upper.edges("hasChild") if r.target_identifier == upper.item_by_code()["8451505324000000"].identifier
    )
    assert upper.provenance[edge.identifier]["derivation"]["placedBy"] == "code-following"
    (finding,) = [f for f in upper.report["findings"] if f["code"] == "source_variant_accepted"]
    assert "8451505324000000" in finding["message"]


def test_statement_types_name_the_level_a_code_ends_at(elementary: PackageView, upper: PackageView) -> None:
    items = elementary.item_by_code()
    assert {code: items[code].statement_type for code in ("8200000000000000", "8210000000000000")} == {
        "8200000000000000": "章",
        "8210000000000000": "節",
    }
    assert items["8250200000000000"].statement_type == "大項目"
    assert items["8250230000000000"].statement_type == "学年"
    assert items["8250233000000000"].statement_type == "項目"
    assert items["82N1200000000000"].statement_type == "分野・科目"
    assert items["8250233161200000"].statement_type == "事項"
    assert items["8250233161200000"].normalized_statement_type == "provision"
    assert upper.item_by_code()["8450500000000000"].statement_type == "款"


def test_grades_come_from_the_grade_digit_and_ranges_name_every_grade(elementary: PackageView) -> None:
    items = elementary.item_by_code()
    assert items["8250233161200000"].grade_level == ("第３学年",)
    assert items["82702A3100000000"].grade_level == ("第１学年", "第２学年")
    assert items["82201L0000000000"].grade_level == ("第３学年", "第４学年", "第５学年", "第６学年")
    # A heading without a grade digit carries its items' grades, said to be derived.
    assert items["8250200000000000"].grade_level == ("第３学年",)
    derived = elementary.provenance[items["8250200000000000"].identifier]["derivedFields"]
    assert "gradeLevel" in derived


def test_the_upper_secondary_table_states_no_grade(upper: PackageView) -> None:
    assert all(item.grade_level == () for item in upper.items)


def test_provenance_names_the_file_sheet_and_row(elementary: PackageView) -> None:
    item = elementary.item_by_code()["8250233161200000"]
    record = elementary.provenance[item.identifier]
    assert record["epistemicStatus"] == "source_extracted"
    locator = record["locator"]
    assert locator["datasetFile"] == "82V11.xlsx"
    assert locator["row"] == 3 + 1 + [c for _, _, c in ELEMENTARY].index("8250233161200000")
    assert locator["code"] == "8250233161200000"
    assert len(locator["sha256"]) == 64


def test_a_rebuild_is_byte_identical(tmp_path: Path, profiles_root: Path) -> None:
    table = write_table(tmp_path / "82V11.xlsx", ELEMENTARY)
    digests = []
    for run in ("a", "b"):
        write_and_validate([build(table, profiles_root)], profiles_root, tmp_path / run)
        digests.append(tree_digest(tmp_path / run))
    assert digests[0] == digests[1]


def test_a_later_version_of_a_table_is_another_snapshot(tmp_path: Path, profiles_root: Path) -> None:
    table = write_table(tmp_path / "new.xlsx", ELEMENTARY, table="82V12", version="1.2")
    content = build(table, profiles_root)
    assert (content.framework_id, content.snapshot_id) == (ELEMENTARY_ID, "82v12")


def test_a_code_stored_as_a_number_is_read_as_its_digits_and_reported(tmp_path: Path, profiles_root: Path) -> None:
    path = write_table(tmp_path / "t.xlsx", ELEMENTARY)
    workbook = openpyxl.load_workbook(path)
    sheet = workbook.active
    assert sheet is not None
    sheet["D5"] = int("8200000100000000")
    workbook.save(path)
    content = build(path, profiles_root)
    assert "8200000100000000" in {item.statement_code for item in content.items}
    (finding,) = content.build_findings
    assert "stored as numbers" in finding.message and "5" in finding.message


def _edit(path: Path, cell: str, value: object) -> Path:
    workbook = openpyxl.load_workbook(path)
    sheet = workbook.active
    assert sheet is not None
    sheet[cell] = value
    workbook.save(path)
    return path


@pytest.mark.parametrize(
    ("cell", "value", "message"),
    [
        ("D6", "82000001", "is not 16 characters"),
        ("D6", "8200000110000-00", "is not 16 characters"),
        ("C6", None, "the text cell is empty"),
        ("A6", " ", "the subject cell is empty"),
        ("B6", "x", "is not a whole number"),
        ("D3", "コード", "0 sheets have a header row"),
        ("B1", "小学校学習指導要領", "no cell above the header row reads as a table title"),
    ],
)
def test_a_table_the_layout_cannot_read_is_refused_naming_the_row(
    tmp_path: Path, profiles_root: Path, cell: str, value: object, message: str
) -> None:
    path = _edit(write_table(tmp_path / "t.xlsx", ELEMENTARY), cell, value)
    with pytest.raises(ManifestBuildError, match=message):
        build(path, profiles_root)


def test_two_tables_in_one_file_are_refused(tmp_path: Path, profiles_root: Path) -> None:
    path = write_table(tmp_path / "t.xlsx", ELEMENTARY, extra_sheet=True)
    with pytest.raises(ManifestBuildError, match="2 sheets have a header row"):
        build(path, profiles_root)


def test_a_school_type_the_layout_does_not_declare_is_refused_with_the_fix(tmp_path: Path, profiles_root: Path) -> None:
    special_needs = [(s, t, c[0] + "9" + c[2:]) for s, t, c in ELEMENTARY]
    with pytest.raises(ManifestBuildError, match="school-type digit '9' is not a stage") as raised:
        build(write_table(tmp_path / "t.xlsx", special_needs), profiles_root)
    assert "Declare the stage" in (raised.value.hint or "")


def test_a_file_that_is_not_a_workbook_is_refused(tmp_path: Path, profiles_root: Path) -> None:
    path = tmp_path / "t.xlsx"
    path.write_bytes(b"%PDF-1.4 not a workbook")
    with pytest.raises(ManifestBuildError, match=r"not a readable \.xlsx workbook"):
        build(path, profiles_root)
    with pytest.raises(ManifestBuildError, match="needs a code table file"):
        build(None, profiles_root)  # type: ignore[arg-type]


def test_a_workbook_that_unpacks_past_the_bound_is_refused_before_it_is_read(
    tmp_path: Path, profiles_root: Path
) -> None:
    """A zip bomb: a few hundred KB that declare 65 MiB of sheet XML, which openpyxl would read whole."""
    path = write_table(tmp_path / "t.xlsx", ELEMENTARY)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet9.xml", b" " * (MAX_TABLE_UNPACKED_BYTES + 1))
    assert path.stat().st_size < MAX_TABLE_UNPACKED_BYTES // 64
    with pytest.raises(ManifestBuildError, match=r"unpacks to [\d,]+ bytes, over the 64 MiB"):
        build(path, profiles_root)


def test_a_layout_file_with_a_broken_pattern_is_refused(tmp_path: Path) -> None:
    shipped = json.loads(
        (REPOSITORY_ROOT / "src/kgfegmcp/shipped/layouts/mext-course-of-study.json").read_text("utf-8")
    )
    shipped["tableTitle"] = "^【(?P<table>"
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(shipped), encoding="utf-8")
    with pytest.raises(ConfigurationError, match="tableTitle: Value error, not a valid regular expression"):
        load_code_table_layout(path)
