"""The NaCCA PDF importer on PDFs written here in the published layout, through the real importer and validator.

Each document is described below as the page would print it (headings, a ruled three-column table, bold codes,
bulleted exemplars, the © footer with the page number) and written by ``nacca_layout_pdf``; the expected
statements are the texts as written, independent of the importer. The package is then built, written,
validated and read back as a host would read it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from curriculum_pdf_support import Built, build_content, write_and_validate
from fastmcp import Client
from nacca_layout_pdf import (
    COPYRIGHT,
    Page,
    Para,
    Row,
    bold,
    bullet,
    plain,
    write_curriculum_pdf,
    write_letter_pdf,
)
from package_view import open_package, tree_digest
from typer.testing import CliRunner, Result

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_app_state
from kgfegmcp.cli import app, main
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.sources.memory_budget import BUILD_BUDGET_BYTES
from peak_memory import run_measured
from tool_calls import call, structured

FRAMEWORK = "ghana-nacca-primary-english-language-basic-1-3"
RUNNING_HEADER = "English Language Curriculum for Primary Schools"
BASIC_1 = ("Basic 1", "Strand 1: Oral Language", "Sub-Strand 1: Songs")
BASIC_2 = ("Basic 2", "Strand 1: Oral Language", "Sub-Strand 2: Conversation")

# The statements as written: code → text (the importer must give back exactly these).
CS_SONGS = (
    "Demonstrate understanding of a variety of songs, rhymes and chants from the learners' own communities and "
    "from other cultures"
)
IND_SING = (
    "Listen to and sing familiar songs, rhymes and chants with appropriate expressions, gestures and body "
    "movements while keeping to the rhythm and the beat of each song"
)
EX_SING = (
    "Sing songs with the class and in small groups, clapping the beat and keeping time with the others in the "
    "group while the teacher leads"
)
EX_DRAMA = "Dramatise the songs and act out the parts of the characters they name"
EG_SING = "E.g. Twinkle twinkle little star"
NOTE_SING = "Note: Use songs the learners already know from home"
COMPETENCIES = ("Communication and Collaboration", "Creativity and Innovation")
CS_RHYTHM_PAGE_1 = "Recognise and use the sounds, rhythm and"
CS_RHYTHM_PAGE_2 = "patterns of spoken language in familiar songs and rhymes of the community"
CS_FAMILY = "Use songs and rhymes to talk about themselves and their families"
#: Text printed in the indicators column before any code (the flawed document).
STRAY = "Learners listen to songs before they sing them"
CS_GREET = "Use appropriate language to greet people and to take part in conversations at home and at school"

STATEMENTS: dict[str, str] = {
    "B1.1.1.1": CS_SONGS,
    "B1.1.1.1.1": IND_SING,
    "B1.1.1.1.2": "Recite rhymes with actions",
    "B1.1.1.2": f"{CS_RHYTHM_PAGE_1} {CS_RHYTHM_PAGE_2}",
    "B1.1.1.2.1": "Identify the rhythm of familiar songs and rhymes",
    "B1.1.1.3": CS_FAMILY,
    "B1.1.1.3.1": "Sing songs about the family",
    "B1.1.1.3.2": "Talk about the people in a family song",
    "B2.1.2.1": CS_GREET,
    "B2.1.2.1.1": "Greet people appropriately at different times of the day",
    "B2.1.2.1.2": "Take turns in a conversation",
}
#: An indicator's exemplars as the package's notes: one bullet, "E.g." or "Note:" per line, wrapped lines joined.
NOTES: dict[str, str] = {
    "B1.1.1.1.1": f"• {EX_SING}\n• {EX_DRAMA}\n{EG_SING}\n{NOTE_SING}",
    "B1.1.1.1.2": "• Say the rhyme in groups",
    "B1.1.1.2.1": "• Clap the rhythm of a song\n• Tap the rhythm of the song on the desk with a pencil\n"
    "Note: Keep each activity short",
    "B1.1.1.3.1": "• Sing a song about a mother\n• Sing a song about a father",
    "B1.1.1.3.2": "• Name the family members in the song",
    "B2.1.2.1.1": "• Greet the teacher in the morning\n• Greet a friend after school",
    "B2.1.2.1.2": "• Take part in a short conversation with a partner",
}
#: Where each statement is printed: the PDF's page numbers (the title page is page 1, printed as nothing).
PAGES: dict[str, list[int]] = {
    "B1.1.1.1": [2],
    "B1.1.1.1.1": [2],
    "B1.1.1.1.2": [2],
    "B1.1.1.2": [2, 3],
    "B1.1.1.2.1": [2, 3],
    "B1.1.1.3": [3, 4],
    "B1.1.1.3.1": [3, 4],
    "B1.1.1.3.2": [4],
    "B2.1.2.1": [5],
    "B2.1.2.1.1": [5],
    "B2.1.2.1.2": [5],
}


def _code(code: str, text: str) -> str:
    """A code as printed before its statement: "B1.1.1.1:" for a content standard, "B1.1.1.1.1." for an indicator."""
    return f"{code}{':' if code.count('.') == 3 else '.'} {text}"


def _statement(code: str) -> Para:
    """A statement printed whole, code and text in bold: the text from :data:`STATEMENTS`, so each is written once."""
    return bold(_code(code, STATEMENTS[code]))


def _exemplars(code: str) -> list[Para]:
    """An indicator's exemplar paragraphs, written from :data:`NOTES` (bullets bulleted, the rest plain)."""
    return [bullet(line[2:]) if line.startswith("• ") else plain(line) for line in NOTES[code].split("\n")]


def curriculum_pages() -> list[Page]:
    """The main document: four curriculum pages after the title page.

    Page 2 opens Basic 1 and ends with a content standard cut mid-sentence whose indicator's exemplars go on;
    page 3 is a headerless table continuing both, then a new content standard; page 4 repeats that one with
    "CONT'D" under repeated headings, beside its indicator's last exemplar and a new indicator; page 5 is Basic 2.
    """
    return [
        Page(
            headings=BASIC_1,
            printed="1",
            running_header=RUNNING_HEADER,
            rows=[
                Row(
                    standard=[_statement("B1.1.1.1")],
                    indicators=[
                        _statement("B1.1.1.1.1"),
                        *_exemplars("B1.1.1.1.1"),
                        _statement("B1.1.1.1.2"),
                        *_exemplars("B1.1.1.1.2"),
                    ],
                    competencies=[plain(c) for c in COMPETENCIES],
                ),
                Row(
                    standard=[bold(_code("B1.1.1.2", CS_RHYTHM_PAGE_1))],
                    indicators=[
                        _statement("B1.1.1.2.1"),
                        bullet("Clap the rhythm of a song"),
                    ],
                    competencies=[plain("Personal Development")],
                ),
            ],
        ),
        Page(
            header=None,
            printed="2",
            rows=[
                Row(
                    standard=[bold(CS_RHYTHM_PAGE_2)],
                    indicators=[
                        bullet("Tap the rhythm of the song on the desk with a pencil"),
                        plain("Note: Keep each activity short"),
                    ],
                ),
                Row(
                    standard=[_statement("B1.1.1.3")],
                    indicators=[
                        _statement("B1.1.1.3.1"),
                        bullet("Sing a song about a mother"),
                    ],
                    competencies=[plain("Cultural Identity")],
                ),
            ],
        ),
        Page(
            headings=BASIC_1,
            printed="3",
            running_header=RUNNING_HEADER,
            rows=[
                Row(
                    standard=[bold(_code("B1.1.1.3", f"{CS_FAMILY} CONT'D"))],
                    indicators=[
                        bullet("Sing a song about a father"),
                        _statement("B1.1.1.3.2"),
                        *_exemplars("B1.1.1.3.2"),
                    ],
                ),
            ],
        ),
        Page(
            headings=BASIC_2,
            printed="4",
            running_header=RUNNING_HEADER,
            rows=[
                Row(
                    standard=[_statement("B2.1.2.1")],
                    indicators=[
                        _statement("B2.1.2.1.1"),
                        *_exemplars("B2.1.2.1.1"),
                        _statement("B2.1.2.1.2"),
                        *_exemplars("B2.1.2.1.2"),
                    ],
                    competencies=[plain("Communication and Collaboration")],
                ),
            ],
        ),
    ]


# -- building ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, profiles_root: Path) -> Built:
    """The main document written, built, validated and read back once for the module (building is the slow part)."""
    base = tmp_path_factory.mktemp("nacca-generated")
    pdf = write_curriculum_pdf(base / "english-b1-b3.pdf", curriculum_pages())
    content = build_content(pdf.path, profiles_root)
    write_and_validate([content], profiles_root, base / "graph_packages")
    return Built(pdf, content, open_package(base / "graph_packages", FRAMEWORK))


# -- 1. wrapped cells ----------------------------------------------------------------------------------------


def test_wrapped_cells_are_one_statement_each_with_the_joined_text(built: Built) -> None:
    # The document really prints these over several lines (else this test proves nothing).
    assert len(built.pdf.lines_of(_code("B1.1.1.1", CS_SONGS))) >= 3
    assert len(built.pdf.lines_of(_code("B1.1.1.1.1", IND_SING))) >= 3
    assert len(built.pdf.lines_of(EX_SING)) >= 2
    by_code = built.view.item_by_code()
    assert {code: item.description for code, item in by_code.items()} == STATEMENTS
    assert by_code["B1.1.1.1"].statement_type == "Content Standard"
    assert by_code["B1.1.1.1.1"].statement_type == "Indicator"
    assert {code: by_code[code].notes for code in NOTES} == NOTES
    assert all(by_code[code].notes is None for code in STATEMENTS if code.count(".") == 3)


def test_competencies_are_details_not_text(built: Built) -> None:
    assert built.details("B1.1.1.1.1")["competencies"] == list(COMPETENCIES)
    assert built.details("B1.1.1.2.1")["competencies"] == ["Personal Development"]
    for item in built.view.items:
        for competency in (*COMPETENCIES, "Personal Development", "Cultural Identity"):
            assert competency not in item.description
            assert competency not in (item.notes or "")


def test_indicators_hang_from_their_content_standards(built: Built) -> None:
    by_code = built.view.item_by_code()
    for code, item in by_code.items():
        if code.count(".") == 4:
            assert built.view.parents(item.identifier) == [by_code[code.rpartition(".")[0]].identifier], code
        else:
            (parent,) = built.view.parents(item.identifier)
            assert built.view.nodes[parent].statement_type == "Sub-Strand"


# -- 2. over the page break ----------------------------------------------------------------------------------


def test_statements_continued_on_the_next_page_are_one_statement_with_both_pages(built: Built) -> None:
    codes = Counter(item.statement_code for item in built.view.items if item.statement_code)
    assert codes == Counter(list(STATEMENTS)), "a continued or CONT'D statement was read twice (or lost)"
    for code, pages in PAGES.items():
        assert built.locator(code)["pages"] == pages, code
        assert built.details(code)["pages"] == pages, code
    # The continued content standard's text is both pages' lines; the indicator's exemplars go on over the break.
    assert built.item("B1.1.1.2").description == f"{CS_RHYTHM_PAGE_1} {CS_RHYTHM_PAGE_2}"
    assert built.item("B1.1.1.2.1").notes == NOTES["B1.1.1.2.1"]


def test_a_content_standard_repeated_with_contd_is_the_same_statement(built: Built) -> None:
    assert built.item("B1.1.1.3").description == CS_FAMILY  # no "CONT'D" in the text
    assert built.locator("B1.1.1.3")["pages"] == [3, 4]
    by_code = built.view.item_by_code()
    assert built.view.parents(by_code["B1.1.1.3.2"].identifier) == [by_code["B1.1.1.3"].identifier]
    assert not built.findings("source_code_repeated")
    # Its indicator's exemplars go on beside the repeated code, before the next indicator.
    assert built.item("B1.1.1.3.1").notes == NOTES["B1.1.1.3.1"]
    assert built.locator("B1.1.1.3.1")["pages"] == [3, 4]


# -- 3. page furniture ---------------------------------------------------------------------------------------


def test_running_headers_footers_and_page_numbers_are_never_text(built: Built) -> None:
    furniture = ("©", "NaCCA", "Ministry", RUNNING_HEADER, "CONT'D")
    for item in built.view.items:
        for text in (item.description, item.notes or ""):
            for mark in furniture:
                assert mark not in text, (item.statement_code, mark)
            assert not re.search(r"(?:^|\s)[0-9]+$", text, re.MULTILINE), (item.statement_code, text)
    assert COPYRIGHT not in json.dumps([i.description for i in built.view.items])
    names = {item.description for item in built.view.items if item.statement_code is None}
    assert names == {"Oral Language", "Songs", "Conversation"}


def test_the_printed_page_number_is_recorded(built: Built) -> None:
    for code, pages in PAGES.items():
        printed = [str(page - 1) for page in pages]  # the title page prints no number; page 2 prints "1"
        assert built.locator(code)["printedPages"] == printed, code
        assert built.details(code)["printedPages"] == printed, code


# -- 4. findings ---------------------------------------------------------------------------------------------


def flawed_pages() -> list[Page]:
    """Stray indicator-column text before any code, a skipped indicator number, an indicator under the wrong parent."""
    return [
        Page(
            headings=BASIC_1,
            printed="1",
            rows=[
                Row(indicators=[plain(STRAY)]),
                Row(
                    standard=[_statement("B1.1.1.1")],
                    indicators=[
                        _statement("B1.1.1.1.1"),
                        bullet("Sing songs"),
                        bold(_code("B1.1.1.1.3", "Sing songs from other cultures")),
                        bullet("Sing a song from another region"),
                        bold(_code("B1.1.2.1.1", "Listen to a short story")),
                        bullet("Retell the story"),
                    ],
                ),
            ],
        )
    ]


def test_gaps_misplaced_codes_and_unplaced_text_are_warnings_naming_the_page(
    tmp_path: Path, profiles_root: Path
) -> None:
    pdf = write_curriculum_pdf(tmp_path / "flawed.pdf", flawed_pages())
    content = build_content(pdf.path, profiles_root)
    write_and_validate([content], profiles_root, tmp_path / "graph_packages")
    view = open_package(tmp_path / "graph_packages", FRAMEWORK)
    findings = [f for f in view.report["findings"] if f["stage"] == "build" and f["severity"] == "warning"]
    by_code: dict[str, list[dict[str, Any]]] = {}
    for finding in findings:
        by_code.setdefault(finding["code"], []).append(finding)

    (gap,) = by_code["source_code_gap"]
    assert "B1.1.1.1.2" in gap["message"] and gap["location"] == "page 2"
    (outside,) = by_code["source_code_outside_parent"]
    assert "B1.1.2.1.1" in outside["message"] and "B1.1.1.1" in outside["message"]
    assert outside["location"] == "page 2"
    (unplaced,) = by_code["source_mapping_gap"]
    assert unplaced["location"] == "page 2" and "p. 2" in unplaced["message"]
    assert "indicators column" in unplaced["message"]
    assert set(by_code) == {"source_code_gap", "source_code_outside_parent", "source_mapping_gap"}
    # Kept as printed: every printed statement is there, the misplaced one under the standard it is printed under.
    items = view.item_by_code()
    assert set(items) == {"B1.1.1.1", "B1.1.1.1.1", "B1.1.1.1.3", "B1.1.2.1.1"}
    assert view.parents(items["B1.1.2.1.1"].identifier) == [items["B1.1.1.1"].identifier]
    # The stray text is reported, not slipped into a statement.
    assert all(STRAY not in i.description + (i.notes or "") for i in view.items)


def test_the_clean_document_has_no_warnings(built: Built) -> None:
    warnings = [f for f in built.view.report["findings"] if f["severity"] != "info"]
    assert warnings == []


def test_findings_in_the_public_report_do_not_quote_withheld_text(tmp_path: Path, profiles_root: Path) -> None:
    # The validation report is public metadata, served whatever the rights (docs/packages.md: "never the texts:
    # the report is public metadata"); built without a review, the document's text is withheld, so a finding
    # may say where text was left unplaced, not what it says.
    pdf = write_curriculum_pdf(tmp_path / "flawed.pdf", flawed_pages())
    content = build_content(pdf.path, profiles_root)
    assert content.rights.full_text_denial() is not None
    write_and_validate([content], profiles_root, tmp_path / "graph_packages")
    report = open_package(tmp_path / "graph_packages", FRAMEWORK).report
    quoting = [f["message"] for f in report["findings"] if STRAY[:24] in f["message"]]
    assert quoting == []


#: The row of the orphan tables below: a content standard and an indicator of the main document, printed again.
ORPHAN_ROW = Row(standard=[_statement("B1.1.1.3")], indicators=[_statement("B1.1.1.3.1"), bullet("Sing a song")])


def _orphan_under_running_header() -> list[Page]:
    """A headed page, then a headerless table under a running header line (so it continues no table)."""
    orphan = Page(header=None, printed="2", running_header=RUNNING_HEADER, rows=[ORPHAN_ROW])
    return [curriculum_pages()[0], orphan]


def _orphan_first_table() -> list[Page]:
    """The first curriculum table printed without its header row (there is no table before it to continue)."""
    orphan = Page(headings=BASIC_1, header=None, printed="1", rows=[ORPHAN_ROW])
    return [orphan, *curriculum_pages()[:1]]


def _orphan_under_repeated_headings() -> list[Page]:
    """A headed page, then a headerless table under the same grade, strand and sub-strand headings printed again."""
    first, orphan = _orphan_under_running_header()
    return [first, replace(orphan, running_header=None, headings=BASIC_1)]


@pytest.mark.parametrize(
    ("pages", "orphan_page"),
    [(_orphan_under_running_header, 3), (_orphan_under_repeated_headings, 3), (_orphan_first_table, 2)],
    ids=["under-a-running-header", "under-repeated-headings", "first-table-without-header"],
)
def test_a_headerless_table_that_continues_nothing_is_read_or_reported_not_dropped(
    pages: Callable[[], list[Page]], orphan_page: int, tmp_path: Path, profiles_root: Path
) -> None:
    # A ruled table with no header row that continues no table: the importer may read it or refuse to, but it
    # must say so, naming the page, rather than lose its statements in silence.
    pdf = write_curriculum_pdf(tmp_path / "orphan-table.pdf", pages())
    content = build_content(pdf.path, profiles_root)
    read = {item.statement_code for item in content.items}
    reported = [f for f in content.build_findings if f.severity != "info" and f.location == f"page {orphan_page}"]
    assert "B1.1.1.3" in read or reported, f"the table on page {orphan_page} was dropped without a finding"


# -- 5. refusals ---------------------------------------------------------------------------------------------


def _refusal(path: Path, profiles_root: Path) -> str:
    """The message the importer refuses ``path`` with, checked to be one ``manifest_build_error`` line."""
    with pytest.raises(ManifestBuildError) as caught:
        build_content(path, profiles_root)
    message = caught.value.message
    assert "\n" not in message
    assert caught.value.code == "manifest_build_error"
    return message


def test_a_letter_is_refused_in_one_line_saying_what_was_found(tmp_path: Path, profiles_root: Path) -> None:
    letter = write_letter_pdf(
        tmp_path / "letter.pdf",
        ["Dear Headteacher,", "The new timetable starts on Monday.", "Yours faithfully,", "The District Office"],
    )
    message = _refusal(letter.path, profiles_root)
    assert message.startswith("letter.pdf is not in the")
    assert "no title page" in message
    assert re.search(r"\b1 pages?\b", message)
    assert "0 table(s)" in message


def test_a_table_with_other_headers_is_refused_in_one_line(tmp_path: Path, profiles_root: Path) -> None:
    other = Page(
        header=("NAME OF SCHOOL", "DISTRICT", "ENROLMENT"),
        printed="1",
        rows=[Row(standard=[plain("Accra Primary")], indicators=[plain("Accra")], competencies=[plain("420")])],
    )
    pdf = write_curriculum_pdf(tmp_path / "schools.pdf", [other])
    message = _refusal(pdf.path, profiles_root)
    assert message.startswith("schools.pdf is not in the")
    assert "no title page" not in message  # the title page is there: only the table is not the layout's
    assert re.search(r"\b2 pages?\b", message)
    assert "0 table(s)" in message


def test_a_file_that_is_not_a_pdf_is_refused_in_one_line(
    tmp_path: Path, profiles_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "curriculum.pdf"
    path.write_text("ENGLISH LANGUAGE\nCURRICULUM FOR PRIMARY SCHOOLS\n", encoding="utf-8")
    assert "not a PDF" in _refusal(path, profiles_root)
    missing = tmp_path / "missing.pdf"
    assert "not a readable file" in _refusal(missing, profiles_root)
    # The command line says it in one coded line on stderr, exit code 2, nothing written.
    arguments = ["kgfegmcp", "packages", "build", "--source", "nacca-pdf", str(path), "--out", str(tmp_path / "out")]
    monkeypatch.setattr(sys, "argv", arguments)
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    stderr = capsys.readouterr().err
    assert stderr.startswith("manifest_build_error: curriculum.pdf is not a PDF") and stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_a_truncated_pdf_is_refused_in_one_line(tmp_path: Path, profiles_root: Path) -> None:
    pdf = write_curriculum_pdf(tmp_path / "whole.pdf", curriculum_pages()[:1])
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(pdf.data[: len(pdf.data) // 3])
    message = _refusal(cut, profiles_root)
    assert message.startswith("cut.pdf is not")


def _deflate_bomb_pdf(path: Path, inflated_bytes: int) -> Path:
    """A one-page PDF whose content stream is a few hundred KB of deflate that inflates to ``inflated_bytes``."""
    packer = zlib.compressobj(9)
    block = b" " * (1 << 20)
    stream = b"".join(packer.compress(block) for _ in range(inflated_bytes >> 20)) + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    data, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(data)
    data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    data += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    data += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(data)
    return path


def test_a_pdf_whose_streams_inflate_past_the_memory_budget_is_refused_in_one_line(tmp_path: Path) -> None:
    """pdfminer inflates a stream whole: 1 GiB from about 1 MB of deflate. The build stops at its budget
    with a coded line, its peak memory well under 1 GiB."""
    bomb = _deflate_bomb_pdf(tmp_path / "bomb.pdf", BUILD_BUDGET_BYTES + (256 << 20))
    assert bomb.stat().st_size < 4 << 20
    command = [str(Path(sys.executable).parent / "kgfegmcp"), "packages", "build", "--source", "nacca-pdf"]
    command += [str(bomb), "--out", str(tmp_path / "out")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGFEGMCP_")}
    run = run_measured(command, env, timeout=120)
    assert run.exit_code == 2, run.stderr
    assert run.stderr.startswith("manifest_build_error: Building from bomb.pdf needed more than the 768 MiB"), (
        run.stderr
    )
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert run.peak_bytes < 1 << 30
    assert not (tmp_path / "out").exists()


# -- 6. counts -----------------------------------------------------------------------------------------------


def test_source_counts_match_the_document_and_the_package_validates(built: Built) -> None:
    validation = built.view.manifest["validation"]
    assert validation["status"] == "passed"
    assert validation["findings"]["errors"] == 0 and validation["findings"]["byCode"] == {"source_counts": 1}
    by_type: dict[str, Counter[str]] = {"Content Standard": Counter(), "Indicator": Counter()}
    for code in STATEMENTS:
        kind = "Content Standard" if code.count(".") == 3 else "Indicator"
        by_type[kind][f"Basic {code[1]}"] += 1
    parts = [
        f"{kind}: {sum(grades.values())} (" + ", ".join(f"{g}: {n}" for g, n in sorted(grades.items())) + ")"
        for kind, grades in by_type.items()
    ]
    expected = f"Read from english-b1-b3.pdf (5 pages): {'; '.join(parts)}; Strand: 2; Sub-Strand: 2."
    (counts,) = built.findings("source_counts")
    assert counts["severity"] == "info"
    assert counts["message"] == expected
    assert Counter(item.statement_type for item in built.view.items) == Counter(
        {"Content Standard": 4, "Indicator": 7, "Strand": 2, "Sub-Strand": 2}
    )


# -- 7. rights -----------------------------------------------------------------------------------------------


def _cli_build(pdf: Path, out: Path, profiles_root: Path, *extra: str) -> Result:
    """``packages build --source nacca-pdf`` in process (the real command, no server, no subprocess)."""
    runner = CliRunner()
    arguments = ["packages", "build", "--source", "nacca-pdf", str(pdf), "--out", str(out)]
    return runner.invoke(app, [*arguments, "--profiles-dir", str(profiles_root), *extra])


def _manifest(out: Path) -> dict[str, Any]:
    """The manifest of the one package built into ``out``."""
    (path,) = out.glob(f"{FRAMEWORK}/*/package_manifest.json")
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_without_a_review_the_text_is_withheld_and_the_cli_says_how_to_approve(
    built: Built, tmp_path: Path, profiles_root: Path
) -> None:
    result = _cli_build(built.pdf.path, tmp_path / "out", profiles_root)
    assert result.exit_code == 0, result.output
    rights = _manifest(tmp_path / "out")["rights"]
    assert rights["reviewStatus"] == "review_required"
    assert RightsPolicy.model_validate(rights).full_text_denial() is not None
    assert "packages review" in result.stderr and "no rebuild" in result.stderr
    assert "withheld" in result.stderr
    validated = CliRunner().invoke(
        app, ["packages", "validate", str(tmp_path / "out"), "--profiles-dir", str(profiles_root)]
    )
    assert validated.exit_code == 0, validated.output


async def test_the_operators_review_is_recorded_outside_the_package_and_serves_the_text(
    built: Built, tmp_path: Path, profiles_root: Path
) -> None:
    rights_file = tmp_path / "config" / "operator_rights.json"
    result = _cli_build(
        built.pdf.path,
        tmp_path / "out",
        profiles_root,
        "--review-status",
        "provisional_operator_approved",
        "--rights-file",
        str(rights_file),
    )
    assert result.exit_code == 0, result.output
    assert "withheld" not in result.stderr
    rights = _manifest(tmp_path / "out")["rights"]
    assert rights["reviewStatus"] == "review_required"  # the profile's: a manifest never widens it
    (key, decision), *others = json.loads(rights_file.read_text(encoding="utf-8"))["decisions"].items()
    assert not others and key.startswith(f"{FRAMEWORK}@")
    assert decision["reviewStatus"] == "provisional_operator_approved" and decision["decidedBy"]
    assert decision["decidedAt"] and "--review-status" in decision["note"]
    validated = CliRunner().invoke(
        app, ["packages", "validate", str(tmp_path / "out"), "--profiles-dir", str(profiles_root)]
    )
    assert validated.exit_code == 0, validated.output
    settings = {"graph_packages_dir": tmp_path / "out", "profiles_dir": profiles_root, "cache_dir": tmp_path / "cache"}
    code = next(i.statement_code for i in built.view.items if i.statement_type == "Indicator")
    state = build_app_state(load_settings({**settings, "operator_rights_file": rights_file}))
    async with Client(create_app(state)) as client:
        answer = structured(await call(client, "get_standard", {"frameworkId": FRAMEWORK, "statementCode": code}))
    assert answer["standard"]["description"] == built.item(code).description
    assert answer["package"]["operatorReview"] == f"provisional_operator_approved ({decision['decidedAt']})"


# -- 8. determinism ------------------------------------------------------------------------------------------


def test_the_same_pdf_builds_byte_identical_packages(built: Built, tmp_path: Path, profiles_root: Path) -> None:
    again = write_curriculum_pdf(tmp_path / "english-b1-b3.pdf", curriculum_pages())
    assert again.data == built.pdf.data  # the writer is deterministic, so the snapshot id is too
    roots = []
    for name in ("first", "second"):
        PackageWriter().write_pending(build_content(again.path, profiles_root), tmp_path / name)
        roots.append(tmp_path / name)
    first, second = (tree_digest(root) for root in roots)
    assert first.keys() == second.keys() and first
    assert [name for name in first if first[name] != second[name]] == []


# -- 9. identity ---------------------------------------------------------------------------------------------


def test_framework_and_snapshot_ids_come_from_the_title_page_and_the_bytes(built: Built) -> None:
    sha = hashlib.sha256(built.pdf.path.read_bytes()).hexdigest()
    assert built.content.framework_id == FRAMEWORK
    assert built.content.snapshot_id == f"2019-{sha[:12]}"
    assert built.view.manifest["frameworkId"] == FRAMEWORK
    assert built.view.manifest["snapshotId"] == f"2019-{sha[:12]}"
    assert built.view.path.name == f"2019-{sha[:12]}"
    assert built.view.framework.name == "ENGLISH LANGUAGE CURRICULUM FOR PRIMARY SCHOOLS (BASIC 1 - 3)"
    assert built.view.framework.academic_subject == "ENGLISH LANGUAGE"
    checksums = built.view.manifest["source"]["upstreamChecksums"]
    assert checksums == [{"file": "english-b1-b3.pdf", "algorithm": "sha256", "value": sha}]
