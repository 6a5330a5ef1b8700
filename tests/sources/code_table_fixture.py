# ruff: noqa: RUF001  (Japanese curriculum text is written with full-width digits, commas and brackets)
"""Small MEXT-layout code tables written by the tests, each quirk of the real tables reproduced.

The real tables (``src/kgfegmcp/shipped/sources/japan-mext/``) put the title in B1 (A1 in one), a note in
row 2 and the header in row 3; repeat the code one character per column in 第３桁…第16桁 with digits as
numbers and letters as strings (and, in one table, some digits as numeric strings); pad headings with
ideographic spaces; break lines inside cells. Their codes nest 3 → 5 → 4 → 6 → 7 → 8 …, carry grade ranges
on headings (小学校 ``L`` = 第３〜第６学年), count long lists in decimal over several digits, and hold a few
headings MEXT printed with stray digits. :data:`ELEMENTARY` is a table with each of these.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import openpyxl

HEADER = (
    "教科等",
    "No",
    "学習指導要領テキスト",
    "学習指導要領コード",
    *(f"第{'３４５６７８９'[i]}桁" if i < 7 else f"第{i + 3}桁" for i in range(14)),
)

#: (教科等, text, code) in document order: a small elementary Course of Study.
ELEMENTARY: tuple[tuple[str, str, str], ...] = (
    ("総則", "第１章\u3000総\u3000\u3000\u3000則", "8200000000000000"),
    ("総則", "第１\u3000小学校教育の基本と教育課程の役割", "8200000100000000"),
    ("総則", "１\u3000各学校においては，…適切な教育課程を編成するものとし，", "8200000110000000"),
    ("総則", "(1) 基礎的・基本的な知識及び技能を確実に習得させ，\n\u3000学校における道徳教育は， ", "8200000111000000"),
    ("各教科（共通）", "第２章\u3000各教科", "82n0000000000000"),
    ("国語", "第１節\u3000国\u3000\u3000\u3000語", "8210000000000000"),
    ("国語", "別表\u3000学年別漢字配当表", "8210000100000000"),
    ("国語", "第一学年（80字）", "8210010110000000"),
    *(("国語", kanji, f"821001011{n:03d}0000") for n, kanji in enumerate("一右雨円王音下火花貝学気", start=1)),
    ("算数", "第３節\u3000算\u3000\u3000数", "8250000000000000"),
    ("算数", "第２\u3000各学年の目標及び内容", "8250200000000000"),
    ("算数", "〔第３学年〕", "8250230000000000"),
    ("算数", "２\u3000内\u3000容", "8250233000000000"),
    ("算数", "Ａ\u3000数と計算", "8250233100000000"),
    (
        "算数",
        "(6) 分数とその表し方に関わる数学的活動を通して，次の事項を身に付けることができるよう指導する。",
        "8250233160000000",
    ),
    ("算数", "ア\u3000次のような知識及び技能を身に付けること。", "8250233161000000"),
    ("算数", "(ｲ) 分数が単位分数の幾つ分かで表すことができることを知ること。", "8250233161200000"),
    ("社会", "第２節\u3000社\u3000\u3000\u3000会", "82200L0000000000"),
    ("社会", "第１\u3000目\u3000\u3000標", "82201L0000000000"),
    ("社会", "第２\u3000各学年の目標及び内容", "82202L0000000000"),
    ("社会", "〔第３学年〕", "8220230000000000"),
    ("社会", "１\u3000目\u3000標", "8220232000000000"),
    ("社会", "(1) 身近な地域や市区町村の地理的環境，…を理解する", "8220232100000000"),
    ("生活", "第５節\u3000生\u3000\u3000\u3000活", "82700A0000000000"),
    ("生活", "第２\u3000各学年の目標及び内容", "82702A0000000000"),
    ("生活", "(1) 学校生活に関わる活動を通して，…", "82702A3100000000"),
    ("特別の教科\u3000道徳", "第３章\u3000特別の教科\u3000道徳", "82K0000000000000"),
    ("特別の教科\u3000道徳", "第１\u3000目\u3000\u3000標", "82K0100000000000"),
    ("特別活動", "第６章\u3000特別活動", "82N0000000000000"),
    ("特別活動", "第２\u3000各活動・学校行事の目標及び内容", "82N0200000000000"),
    ("特別活動", "〔学級活動〕", "82N1200000000000"),
    ("特別活動", "１\u3000目\u3000標", "82N1220000000000"),
)

#: Upper secondary: 科目 (digit 4) under 第２款 各科目 (digit 5), and a heading with stray digits.
UPPER_SECONDARY: tuple[tuple[str, str, str], ...] = (
    ("総則", "第１章\u3000総\u3000\u3000\u3000則", "8400000000000000"),
    ("総則", "第１款\u3000高等学校教育の基本と教育課程の役割", "8400000100000000"),
    ("各教科（共通）", "第２章\u3000各学科に共通する各教科", "84n0000000000000"),
    ("数学", "第４節\u3000数\u3000\u3000\u3000学", "8450000000000000"),
    ("数学", "第１款\u3000目\u3000\u3000標", "8450100000000000"),
    ("数学", "第２款\u3000各\u3000科\u3000目", "8450500000000000"),
    ("数学", "第１\u3000数学Ⅰ", "8451500000000000"),
    ("数学", "１\u3000目\u3000標", "8451502000000000"),
    ("数学", "２\u3000内\u3000容", "8451503000000000"),
    ("数学", "(1) 数と式", "8451503100000000"),
    ("数学", "３\u3000内容の取扱い", "8451505324000000"),  # MEXT's stray digits: expected 8451505000000000
    ("数学", "(1) 内容の(1)については，…", "8451505300000000"),
    ("家庭", "第９節\u3000家\u3000\u3000\u3000庭", "84F0000000000000"),
    ("家庭", "第３款\u3000各科目にわたる指導計画の作成と内容の取扱い", "84F0300000000000"),
    ("家庭", "１\u3000指導計画の作成に当たっては，次の事項に配慮するものとする。", "84F0300100000000"),
    ("家庭", "(3) 一部改正された事項", "84F0300130000001"),
)


def digit_cells(code: str, numeric_strings: bool) -> list[object]:
    """第３桁…第16桁 as MEXT stores them: digits as numbers (or numeric strings), letters as strings."""
    cells: list[object] = []
    for character in code[2:]:
        if character.isdigit():
            cells.append(character if numeric_strings else int(character))
        else:
            cells.append(character)
    return cells


def write_table(
    path: Path,
    rows: Sequence[tuple[str, str, str]],
    *,
    table: str = "82V11",
    name: str = "小学校学習指導要領（平成29年告示）",
    version: str = "1.1",
    title_cell: str = "B1",
    numeric_strings: bool = False,
    extra_sheet: bool = False,
) -> Path:
    """Write ``rows`` as one MEXT code-table sheet (title, note row, header on row 3, then the rows)."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = f"【{table}】{name}"[:31]
    sheet[title_cell] = f"【{table}】{name}コード表\u3000Ver {version}"
    sheet["E2"] = "※第３桁～第16桁を１桁ごとに分割"
    for column, label in enumerate(HEADER, start=1):
        sheet.cell(row=3, column=column, value=label)
    for number, (subject, text, code) in enumerate(rows, start=1):
        values = [subject, number, text, code, *digit_cells(code, numeric_strings)]
        for column, value in enumerate(values, start=1):
            sheet.cell(row=3 + number, column=column, value=value)
    if extra_sheet:
        other = workbook.create_sheet("copy")
        for column, label in enumerate(HEADER, start=1):
            other.cell(row=1, column=column, value=label)
    workbook.save(path)
    return path
