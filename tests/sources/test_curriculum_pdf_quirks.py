"""Printing quirks of NaCCA's real curriculum PDFs, each reproduced in a small generated PDF, through the real importer.

Every quirk here was met in a published document and is handled by the importer: a code printed with a space
inside it, a stray letter before a code, a code printed in the wrong column, two content standards in one row
whose lines do not share baselines, header rules that do not line up with the body's, a misspelt header, the
labels over a continued table, a cross-reference in exemplars, an unnumbered sub-strand heading, a title page
set without a space, a French curriculum, and a heading printed again over a continued table. Each document is
written by ``nacca_layout_pdf`` as the page would print it; the expected statements are the texts as written,
independent of the importer. Each package is built, written, validated and read back once for the module; the
last tests serve some of them in process and read a standard's page citation back through ``get_standard``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from curriculum_pdf_support import Built, build_content, operator_rights_beside, record_reviews, write_and_validate
from fastmcp import Client
from nacca_layout_pdf import (
    COLUMN_WIDTHS,
    MARGIN,
    NACCA_HEADER,
    TITLE_LINES,
    Page,
    Para,
    Row,
    bold,
    bullet,
    plain,
    write_curriculum_pdf,
)
from package_view import open_package

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState, build_app_state
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.rights import ReviewStatus
from tool_calls import call, structured, texts

APPROVED: ReviewStatus = "provisional_operator_approved"


def _title(subject: str, levels: str = "(BASIC 1 - 3)") -> tuple[str, ...]:
    """A title page's lines, as NaCCA prints them (the importer reads subject, schools and levels from them)."""
    return (*TITLE_LINES[:2], subject, TITLE_LINES[3], levels, *TITLE_LINES[5:])


# -- the documents -------------------------------------------------------------------------------------------

# 1. A code printed with a space inside it (English), and the Creative Arts form with a space for the first dot.
CS_SPACED, IND_SPACED = "Use culturally acceptable language", "Use appropriate greetings"
CS_CREATIVE = "Demonstrate understanding of visual artworks found in the local community"
IND_CREATIVE = "Explore the local community to find visual artworks"

# 2. A stray letter before an indicator code.
IND_STRAY = "Engage and orient the reader"

# 3. An indicator code printed alone in the content-standards column, level with the indicator itself.
CS_LONE = "Talk about past events"
LONE_CODE = "B1.1.1.1.3"
LONE_LINE = 4  # the cell line both are printed on

# 4. Two content standards in one row; the second one's indicator starts above its code's baseline.
CS_EXPLORE = "Explore a variety of stories read aloud"
CS_APPLY = "Apply listening skills to follow instructions"
SECOND_LINE = 4  # the cell line the second content standard (and its indicator) starts on
SECOND_DROP = 6.0  # the second content standard is printed this many points below its indicator
IND_FOLLOW = "Follow simple instructions"
NOTES_FOLLOW = "• Follow two-step instructions in class\n• Play a game of giving and following instructions"

# 8. A cross-reference inside exemplars (the indicator B2.1.6.1.2, printed earlier, cited on a line of its own).
XREF_LINE, XREF_CODE = "Read a narrative text aloud, following the procedure in", "B2.1.6.1.2."

# 5. Header rules that do not line up with the body's: the real document's x positions, scaled to this table.
TABLE_WIDTH = sum(COLUMN_WIDTHS)
REAL_LEFT, REAL_RIGHT = 67.0, 775.0
REAL_HEADER_EDGES = (67.0, 303.0, 539.0, 775.0)
REAL_BODY_EDGES = (67.0, 178.0, 608.0, 775.0)


def _scaled_widths(edges: Sequence[float]) -> tuple[float, ...]:
    """A real row's column widths (from its rules' x positions) scaled onto this writer's table width."""
    scale = TABLE_WIDTH / (REAL_RIGHT - REAL_LEFT)
    widths = [(right - left) * scale for left, right in itertools.pairwise(edges)]
    return (*widths[:-1], TABLE_WIDTH - sum(widths[:-1]))


HEADER_WIDTHS = _scaled_widths(REAL_HEADER_EDGES)
BODY_WIDTHS = _scaled_widths(REAL_BODY_EDGES)
CS_LETTERS = "Recognise and name the letters of the alphabet in their upper and lower case forms"
IND_LETTERS = (
    "Identify the upper and lower case letters of the alphabet in words printed on charts, in big books and "
    "on the labels of objects around the classroom"
)

# 9 and 10. An unnumbered sub-strand heading; a levels line printed without a space.
PE_SUB_STRAND = "LOCOMOTOR, MANIPULATIVE AND RHYTHMIC SKILLS"

# 11. A French curriculum.
CS_FRENCH = "Écouter et comprendre des salutations et des présentations"
IND_FRENCH = "Saluer et répondre aux salutations"
IND_FRENCH_ALONE = "Saluer et répondre oralement aux salutations en respectant les valeurs sociales"

# 12. A sub-strand heading printed again over a continued table.
MEASUREMENT = ("Basic 2", "Strand 3: Geometry and Measurement", "Sub-Strand 3: Measurement")
NOTES_COMPARE = (
    "• Measure the length of a desk with hand spans\n• Compare the lengths of two pencils\n"
    "E.g. The blue pencil is longer than the red pencil"
)


@dataclass(frozen=True)
class Case:
    """One generated document: its file name, title page and curriculum pages."""

    file: str
    title: tuple[str, ...]
    pages: tuple[Page, ...]


def _one_table(headings: Sequence[str], *rows: Row, printed: str = "1", **page: Any) -> Page:
    """A curriculum page: headings over one headed table."""
    return Page(headings=tuple(headings), printed=printed, rows=rows, **page)


#: Our World and Our People's four columns: content standard, indicator, exemplars, competencies.
OWOP_HEADER = ("Content Standard", "Indicator", "Exemplars", "Core Competencies and Subject Specific Practices")
OWOP_WIDTHS = (0.17 * TABLE_WIDTH, 0.2 * TABLE_WIDTH, 0.42 * TABLE_WIDTH, 0.21 * TABLE_WIDTH)
OWOP_ACTIVITY = (
    "Engage learners in a nature walk to observe, identify, locate and talk about things in the environment and "
    "their uses, and sort them into living, non-living, manmade and natural things"
)
OWOP_NOTE = "Note: As learners browse pictures of things in the environment, help them name the parts of the computer"

CASES: dict[str, Case] = {
    "textless": Case(
        "textless.pdf",
        _title("MATHEMATICS"),
        (
            _one_table(
                ("Basic 1", "Strand 1: Number", "Sub-Strand 1: Counting"),
                Row(
                    standard=[bold("B1.1.1.1: Describe numbers and the relationship between numbers 0 to 100")],
                    indicators=[bold("B1.1.1.1.1"), bullet("Count forwards and backwards in ones")],
                ),
            ),
        ),
    ),
    "owop": Case(
        "owop.pdf",
        _title("OUR WORLD AND OUR PEOPLE"),
        (
            _one_table(
                ("Basic 1", "Strand 2: ALL AROUND US", "Sub-Strand 1: The Environment and the Weather"),
                Row(
                    standard=[bold("B1.2.1.1"), plain("Demonstrate knowledge of things in the environment")],
                    indicators=[bold("B1.2.1.1.1."), plain("Explore the uses of things in the environment")],
                    exemplars=[plain(OWOP_ACTIVITY), plain(OWOP_NOTE)],
                    competencies=[plain("Communication and Collaboration")],
                    widths=OWOP_WIDTHS,
                ),
                header=OWOP_HEADER,
                header_widths=OWOP_WIDTHS,
            ),
        ),
    ),
    "spaced": Case(
        "spaced-codes.pdf",
        _title("ENGLISH LANGUAGE"),
        (
            _one_table(
                ("Basic 1", "Strand 1: Oral Language", "Sub-Strand 6: Conversation"),
                Row(
                    standard=[bold(f"B1.1. 6.1: {CS_SPACED}")],
                    indicators=[bold(f"B1.1. 6.1.1. {IND_SPACED}"), bullet("Greet the teacher in the morning")],
                    competencies=[plain("Communication and Collaboration")],
                ),
            ),
        ),
    ),
    "creative": Case(
        "creative-arts.pdf",
        _title("CREATIVE ARTS"),
        (
            _one_table(
                ("Basic 1", "Strand 1: Visual Arts", "Sub-Strand 1: Thinking and Exploring Ideas"),
                Row(
                    standard=[bold(f"B1 1.1.1: {CS_CREATIVE}")],
                    indicators=[bold(f"B1 1.1.1.1 {IND_CREATIVE}"), bullet("Visit a market and name the artworks")],
                ),
            ),
        ),
    ),
    "stray": Case(
        "stray-letter.pdf",
        _title("ENGLISH LANGUAGE"),
        (
            _one_table(
                ("Basic 3", "Strand 4: Writing", "Sub-Strand 10: Narrative Writing"),
                Row(
                    standard=[bold("B3.4.10.1: Write narratives about personal experiences")],
                    indicators=[
                        bold("B3.4.10.1.1. Plan a narrative about a personal experience"),
                        bullet("List the events of a trip in the order they happened"),
                        bold(f"B B3.4.10.1.2. {IND_STRAY}"),
                        bullet("Begin the story with a question to the reader"),
                    ],
                ),
            ),
        ),
    ),
    "lone": Case(
        "lone-code.pdf",
        _title("ENGLISH LANGUAGE"),
        (
            _one_table(
                ("Basic 1", "Strand 1: Oral Language", "Sub-Strand 1: Talking About Events"),
                Row(
                    standard=[bold(f"B1.1.1.1: {CS_LONE}"), Para(LONE_CODE, bold=True, line=LONE_LINE)],
                    indicators=[
                        bold("B1.1.1.1.1. Talk about what they did yesterday"),
                        bullet("Tell a partner about a visit to the market"),
                        bold("B1.1.1.1.2. Answer questions about a past event"),
                        bullet("Say where they went on Sunday"),
                        Para(f"{LONE_CODE} Use simple past tense forms of regular verbs", bold=True, line=LONE_LINE),
                        bullet("Say what they played after school"),
                    ],
                ),
            ),
        ),
    ),
    "two-standards": Case(
        "two-standards.pdf",
        _title("ENGLISH LANGUAGE"),
        (
            _one_table(
                ("Basic 2", "Strand 1: Oral Language", "Sub-Strand 6: Listening Comprehension"),
                Row(
                    standard=[
                        bold(f"B2.1.6.1: {CS_EXPLORE}"),
                        Para(f"B2.1.6.2: {CS_APPLY}", bold=True, line=SECOND_LINE, drop=SECOND_DROP),
                    ],
                    indicators=[
                        bold("B2.1.6.1.1. Listen to a story and answer questions"),
                        bullet("Answer who, what and where questions"),
                        bold("B2.1.6.1.2. Retell a story read aloud"),
                        bullet("Retell the story in the right order"),
                        Para(f"B2.1.6.2.1. {IND_FOLLOW}", bold=True, line=SECOND_LINE),
                        *(bullet(line[2:]) for line in NOTES_FOLLOW.split("\n")),
                    ],
                    competencies=[plain("Critical Thinking"), Para("Personal Development", line=SECOND_LINE)],
                ),
            ),
            _one_table(
                ("Basic 2", "Strand 1: Oral Language", "Sub-Strand 7: Reading Aloud"),
                Row(
                    standard=[bold("B2.1.7.1: Read aloud a variety of texts")],
                    indicators=[
                        bold("B2.1.7.1.1. Read short texts aloud with expression"),
                        bullet("Read a short poem aloud"),
                        bold("B2.1.7.1.2. Read narrative texts aloud fluently"),
                        bullet(XREF_LINE),
                        plain(XREF_CODE),
                    ],
                ),
                printed="2",
            ),
        ),
    ),
    "misaligned": Case(
        "misaligned-header.pdf",
        _title("ENGLISH LANGUAGE"),
        (
            _one_table(
                ("Basic 1", "Strand 2: Reading", "Sub-Strand 1: Phonics"),
                Row(
                    standard=[bold(f"B1.2.1.1: {CS_LETTERS}")],
                    indicators=[
                        bold(f"B1.2.1.1.1. {IND_LETTERS}"),
                        bullet("Point to the letters on the alphabet chart and name each of them aloud with the class"),
                    ],
                    competencies=[plain("Communication and Collaboration")],
                    widths=BODY_WIDTHS,
                ),
                header_widths=HEADER_WIDTHS,
            ),
        ),
    ),
    "misspelt": Case(
        "misspelt-header.pdf",
        _title("ENGLISH LANGUAGE"),
        (
            _one_table(
                ("Basic 1", "Strand 3: Writing", "Sub-Strand 1: Penmanship"),
                Row(
                    standard=[bold("B1.3.1.1: Write letters of the alphabet")],
                    indicators=[bold("B1.3.1.1.1. Trace the letters of the alphabet"), bullet("Trace letters in sand")],
                ),
                header=("CONTENT STANDARS", *NACCA_HEADER[1:]),
            ),
        ),
    ),
    "contd": Case(
        "contd-labels.pdf",
        _title("ENGLISH LANGUAGE"),
        (
            _one_table(
                ("Basic 1", "Strand 1: Oral Language", "Sub-Strand 1: Songs"),
                Row(
                    standard=[bold("B1.1.1.1: Sing songs and rhymes of the community")],
                    indicators=[bold("B1.1.1.1.1. Sing familiar songs"), bullet("Sing a song with the class")],
                ),
            ),
            Page(
                header=None,
                printed="2",
                rows=[
                    Row(
                        standard=[bold("SUB-STRAND 1"), bold("CONT'D")],
                        indicators=[
                            bullet("Sing the song again in small groups"),
                            bold("B1.1.1.1.2. Recite rhymes with actions"),
                            bullet("Say the rhyme in pairs"),
                        ],
                    )
                ],
            ),
        ),
    ),
    "physical-education": Case(
        "physical-education.pdf",
        _title("PHYSICAL EDUCATION", "(BASIC4 - 6)"),
        (
            _one_table(
                ("Basic 4", "Strand 1: Motor Skill and Movement Patterns", f"Sub- Strand: {PE_SUB_STRAND}"),
                Row(
                    standard=[bold("B4.1.2.1: Demonstrate mature patterns of locomotor skills in games")],
                    indicators=[
                        bold("B4.1.2.1.1. Perform a sequence of walking, running and skipping"),
                        bullet("Skip in a circle to music"),
                    ],
                ),
            ),
        ),
    ),
    "french": Case(
        "french.pdf",
        _title("FRENCH", "(BASIC 4 - 6)"),
        (
            _one_table(
                ("Basic 4", "Strand 1: Communication orale", "Sub-Strand 1: Écoute"),
                Row(
                    standard=[bold(f"B4.1.1.1: {CS_FRENCH}")],
                    indicators=[
                        bold(f"B4.1.1.1.1. {IND_FRENCH}"),
                        bullet("Dire bonjour au professeur le matin"),
                        # As Our World and Our People and French print it: the code alone in bold, the statement
                        # in the regular face below it, then "Ex." and dialogue lines led by a dash.
                        bold("B4.1.1.1.2 :"),
                        plain(IND_FRENCH_ALONE),
                        plain("Ex. Deux personnes se saluent au marché."),
                        plain("- Bonjour, Kofi."),
                        plain("- Bonjour, Ama. Comment vas-tu ?"),
                    ],
                ),
            ),
        ),
    ),
    "measurement": Case(
        "measurement.pdf",
        _title("MATHEMATICS"),
        (
            _one_table(
                MEASUREMENT,
                Row(
                    standard=[bold("B2.3.3.1: Use non-standard units to measure and compare lengths")],
                    indicators=[
                        bold("B2.3.3.1.1. Measure lengths with non-standard units"),
                        bullet("Measure the width of a book with paper clips"),
                        bold("B2.3.3.1.2. Compare lengths of objects using non-standard units"),
                        bullet("Measure the length of a desk with hand spans"),
                    ],
                ),
            ),
            Page(
                headings=MEASUREMENT[2:],
                header=None,
                printed="2",
                rows=[
                    Row(
                        indicators=[
                            bullet("Compare the lengths of two pencils"),
                            plain("E.g. The blue pencil is longer than the red pencil"),
                        ]
                    ),
                    Row(
                        standard=[bold("B2.3.3.2: Tell the time on a clock face")],
                        indicators=[bold("B2.3.3.2.1. Tell the time in hours"), bullet("Read the time on a clock")],
                    ),
                ],
            ),
        ),
    ),
}


class Documents:
    """Each document written, built, validated and read back on first use, then kept for the module.

    Built one by one, so a document the importer refuses fails its own tests, not every test of the module.
    """

    def __init__(self, base: Path, profiles_root: Path) -> None:
        self._base, self._profiles_root = base, profiles_root
        self._built: dict[str, Built] = {}

    def __getitem__(self, name: str) -> Built:
        if name not in self._built:
            case = CASES[name]
            pdf = write_curriculum_pdf(self._base / case.file, case.pages, title=case.title)
            content = build_content(pdf.path, self._profiles_root)
            root = self._base / f"packages-{name}"
            write_and_validate([content], self._profiles_root, root)
            self._built[name] = Built(pdf, content, open_package(root, content.framework_id))
        return self._built[name]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, profiles_root: Path) -> Documents:
    """The module's documents (building is the slow part, so each is built once)."""
    return Documents(tmp_path_factory.mktemp("nacca-quirks"), profiles_root)


def _tops(pdf: Path, page: int, text: str) -> list[tuple[float, float]]:
    """Where a word is printed on a page, as (x0, top): how a test checks that the document prints its quirk."""
    with pdfplumber.open(pdf) as document:
        words = document.pages[page - 1].extract_words()
    return [(float(w["x0"]), float(w["top"])) for w in words if w["text"] == text]


# -- 1. a code with a space inside ---------------------------------------------------------------------------


def test_a_code_printed_with_a_space_is_its_code_and_keeps_its_printed_form(built: Documents) -> None:
    spaced = built["spaced"]
    assert spaced.pdf.lines_of(f"B1.1. 6.1: {CS_SPACED}")[0].startswith("B1.1. 6.1: ")
    assert {code: item.description for code, item in spaced.view.item_by_code().items()} == {
        "B1.1.6.1": CS_SPACED,
        "B1.1.6.1.1": IND_SPACED,
    }
    assert spaced.details("B1.1.6.1")["printedCode"] == "B1.1. 6.1"
    assert spaced.details("B1.1.6.1.1")["printedCode"] == "B1.1. 6.1.1"
    assert spaced.locator("B1.1.6.1.1")["code"] == "B1.1. 6.1.1"
    assert spaced.parent_code("B1.1.6.1.1") == "B1.1.6.1"
    assert spaced.findings(warnings=True) == []


def test_a_code_printed_with_a_space_for_its_first_dot_is_read(built: Documents) -> None:
    creative = built["creative"]
    assert {code: item.description for code, item in creative.view.item_by_code().items()} == {
        "B1.1.1.1": CS_CREATIVE,
        "B1.1.1.1.1": IND_CREATIVE,
    }
    assert creative.details("B1.1.1.1")["printedCode"] == "B1 1.1.1"
    assert creative.details("B1.1.1.1.1")["printedCode"] == "B1 1.1.1.1"
    assert creative.parent_code("B1.1.1.1.1") == "B1.1.1.1"
    assert creative.findings(warnings=True) == []


# -- 2. a stray letter before a code -------------------------------------------------------------------------


def test_a_stray_letter_before_an_indicator_code_is_a_mark_reported_as_info(built: Documents) -> None:
    stray = built["stray"]
    assert stray.pdf.lines_of(f"B B3.4.10.1.2. {IND_STRAY}") == [f"B B3.4.10.1.2. {IND_STRAY}"]
    indicator = stray.item("B3.4.10.1.2")
    assert indicator.description == IND_STRAY
    assert indicator.notes == "• Begin the story with a question to the reader"
    assert stray.parent_code("B3.4.10.1.2") == "B3.4.10.1"
    (accepted,) = stray.findings("source_variant_accepted")
    assert accepted["severity"] == "info" and accepted["location"] == "page 2" and "p. 2" in accepted["message"]
    assert stray.findings(warnings=True) == []
    assert all(not item.description.startswith("B ") for item in stray.view.items)


# -- 3. an indicator code alone in the content-standards column ----------------------------------------------


def test_an_indicator_code_alone_beside_its_indicator_is_one_indicator_and_a_warning(built: Documents) -> None:
    lone = built["lone"]
    # The document prints the code twice, level: once alone in the left cell, once before its indicator.
    (left, middle) = sorted(_tops(lone.pdf.path, 2, LONE_CODE))
    assert left[0] < middle[0] and abs(left[1] - middle[1]) < 0.5
    codes = [item.statement_code for item in lone.view.items if item.statement_code]
    assert codes.count(LONE_CODE) == 1
    assert lone.item(LONE_CODE).description == "Use simple past tense forms of regular verbs"
    assert lone.parent_code(LONE_CODE) == "B1.1.1.1"
    assert lone.item("B1.1.1.1").description == CS_LONE  # nothing appended to the content standard
    (gap,) = lone.findings(warnings=True)
    assert gap["code"] == "source_mapping_gap" and gap["severity"] == "warning"
    assert gap["location"] == "page 2" and "p. 2" in gap["message"] and LONE_CODE in gap["message"]
    assert not lone.findings("source_code_repeated")


# -- 4. two content standards in one row ---------------------------------------------------------------------


def test_two_content_standards_in_one_row_take_the_indicators_their_codes_extend(built: Documents) -> None:
    two = built["two-standards"]
    # The second content standard's code is printed below the top of its first indicator (not on its baseline).
    ((_x, standard_top),) = _tops(two.pdf.path, 2, "B2.1.6.2:")
    ((_x, indicator_top),) = _tops(two.pdf.path, 2, "B2.1.6.2.1.")
    assert 4.0 < standard_top - indicator_top < 8.0
    assert two.item("B2.1.6.1").description == CS_EXPLORE
    assert two.item("B2.1.6.2").description == CS_APPLY
    assert two.parent_code("B2.1.6.1.1") == "B2.1.6.1"
    assert two.parent_code("B2.1.6.1.2") == "B2.1.6.1"
    assert two.parent_code("B2.1.6.2.1") == "B2.1.6.2"
    assert two.item("B2.1.6.2.1").description == IND_FOLLOW
    assert two.item("B2.1.6.2.1").notes == NOTES_FOLLOW
    assert two.details("B2.1.6.1.1")["competencies"] == ["Critical Thinking"]
    assert two.details("B2.1.6.2.1")["competencies"] == ["Personal Development"]
    assert not two.findings("source_mapping_gap")
    assert not two.findings("source_code_outside_parent")


# -- 5. header rules that do not line up with the body's ----------------------------------------------------


def test_body_cells_are_read_by_the_header_cell_they_overlap_most(built: Documents) -> None:
    misaligned = built["misaligned"]
    # The header's rules really are elsewhere than the body's (else this proves nothing): text of the indicators
    # column is printed on both sides of the header's first and second rules.
    header_rules = [MARGIN + sum(HEADER_WIDTHS[:i]) for i in (1, 2)]
    body_rules = [MARGIN + sum(BODY_WIDTHS[:i]) for i in (1, 2)]
    assert all(min(abs(h - b) for b in body_rules) > 50 for h in header_rules)
    ((x_code, _top),) = _tops(misaligned.pdf.path, 2, "B1.2.1.1.1.")
    assert body_rules[0] < x_code < header_rules[0]
    assert {code: item.description for code, item in misaligned.view.item_by_code().items()} == {
        "B1.2.1.1": CS_LETTERS,
        "B1.2.1.1.1": IND_LETTERS,
    }
    assert misaligned.item("B1.2.1.1.1").notes == (
        "• Point to the letters on the alphabet chart and name each of them aloud with the class"
    )
    assert misaligned.details("B1.2.1.1.1")["competencies"] == ["Communication and Collaboration"]
    assert misaligned.findings(warnings=True) == []


# -- 6. a misspelt header ------------------------------------------------------------------------------------


def test_a_misspelt_header_still_names_its_column(built: Documents) -> None:
    misspelt = built["misspelt"]
    assert misspelt.pdf.lines_of("CONTENT STANDARS") == ["CONTENT STANDARS"]
    assert {code: item.description for code, item in misspelt.view.item_by_code().items()} == {
        "B1.3.1.1": "Write letters of the alphabet",
        "B1.3.1.1.1": "Trace the letters of the alphabet",
    }
    assert misspelt.findings(warnings=True) == []


# -- 7. labels over a continued table ------------------------------------------------------------------------


def test_sub_strand_and_contd_labels_over_a_continued_table_are_not_text(built: Documents) -> None:
    contd = built["contd"]
    assert contd.item("B1.1.1.1").description == "Sing songs and rhymes of the community"
    for item in contd.view.items:
        for text in (item.description, item.notes or ""):
            assert "SUB-STRAND" not in text and "CONT'D" not in text, (item.statement_code, text)
    # The table is read as the continuation it is: the indicator's exemplars go on, the next one is its sibling.
    assert contd.item("B1.1.1.1.1").notes == "• Sing a song with the class\n• Sing the song again in small groups"
    assert contd.locator("B1.1.1.1.1")["pages"] == [2, 3]
    assert contd.parent_code("B1.1.1.1.2") == "B1.1.1.1"
    assert contd.findings(warnings=True) == []
    assert [f["code"] for f in contd.findings()] == ["source_counts"]


# -- 8. a cross-reference inside exemplars -------------------------------------------------------------------


def test_an_indicator_code_cited_in_exemplars_is_a_reference_not_an_indicator(built: Documents) -> None:
    two = built["two-standards"]
    assert two.pdf.lines_of(XREF_CODE) == [XREF_CODE]
    codes = [item.statement_code for item in two.view.items if item.statement_code]
    assert sorted(codes) == sorted(
        ["B2.1.6.1", "B2.1.6.1.1", "B2.1.6.1.2", "B2.1.6.2", "B2.1.6.2.1", "B2.1.7.1", "B2.1.7.1.1", "B2.1.7.1.2"]
    )
    assert two.item("B2.1.7.1.2").notes == f"• {XREF_LINE} {XREF_CODE}"
    assert two.item("B2.1.6.1.2").notes == "• Retell the story in the right order"  # the cited one is unchanged
    assert two.locator("B2.1.6.1.2")["pages"] == [2]
    assert not two.findings("source_code_repeated")
    assert two.findings(warnings=True) == []


# -- 9 and 10. an unnumbered sub-strand heading; "(BASIC4 - 6)" ---------------------------------------------


def test_a_sub_strand_heading_without_a_number_is_named_by_it_and_numbered_from_its_codes(
    built: Documents,
) -> None:
    pe = built["physical-education"]
    (sub_strand,) = [item for item in pe.view.items if item.statement_type == "Sub-Strand"]
    assert sub_strand.description == PE_SUB_STRAND
    details = pe.view.details[sub_strand.identifier]["sourceDetails"]["curriculumPdf"]
    assert details == {"number": 2, "pages": [2]}  # sub-strand 2, as the code B4.1.2.1 numbers it
    assert pe.view.parents(pe.item("B4.1.2.1").identifier) == [sub_strand.identifier]
    assert "derivedFields" not in pe.view.provenance[sub_strand.identifier]  # its name is printed, not composed
    assert pe.findings(warnings=True) == []


def test_levels_printed_without_a_space_give_the_framework_id(built: Documents) -> None:
    pe = built["physical-education"]
    assert pe.content.framework_id == "ghana-nacca-primary-physical-education-basic-4-6"
    assert pe.view.manifest["frameworkId"] == "ghana-nacca-primary-physical-education-basic-4-6"
    assert pe.view.framework.name == "PHYSICAL EDUCATION CURRICULUM FOR PRIMARY SCHOOLS (BASIC4 - 6)"


# -- 11. a French curriculum ---------------------------------------------------------------------------------


def test_a_french_curriculum_is_in_french(built: Documents) -> None:
    french = built["french"]
    assert french.content.framework_id == "ghana-nacca-primary-french-basic-4-6"
    assert french.view.framework.in_language == "fr"
    assert {item.in_language for item in french.view.items} == {"fr"}
    assert french.item("B4.1.1.1").description == CS_FRENCH
    assert french.item("B4.1.1.1.1").description == IND_FRENCH
    alone = french.item("B4.1.1.1.2")
    assert alone.description == IND_FRENCH_ALONE
    assert alone.notes == "Ex. Deux personnes se saluent au marché.\n- Bonjour, Kofi.\n- Bonjour, Ama. Comment vas-tu ?"
    assert french.findings(warnings=True) == []


def test_four_columns_read_the_exemplars_column_as_the_indicators_notes(built: Documents) -> None:
    owop = built["owop"]
    assert owop.item("B1.2.1.1").description == "Demonstrate knowledge of things in the environment"
    indicator = owop.item("B1.2.1.1.1")
    # The code alone in bold, the statement in the regular face below it: the statement is that text.
    assert indicator.description == "Explore the uses of things in the environment"
    # The exemplars column's wrapped lines are one item each; "Note:" starts the next.
    assert indicator.notes == f"{OWOP_ACTIVITY}\n{OWOP_NOTE}"
    assert len(owop.pdf.wrapped.get(OWOP_ACTIVITY, [])) > 1, "the activity must wrap in its cell"
    assert owop.findings(warnings=True) == []


def test_a_code_printed_without_its_statement_is_described_by_its_code_and_reported(built: Documents) -> None:
    textless = built["textless"]
    item = textless.item("B1.1.1.1.1")
    assert item.description == "B1.1.1.1.1"
    assert item.notes == "• Count forwards and backwards in ones"
    assert "description" in textless.view.provenance[item.identifier]["derivedFields"]
    (finding,) = textless.findings("source_mapping_gap")
    assert "B1.1.1.1.1 prints no statement text" in finding["message"] and finding["location"] == "page 2"


# -- 12. a heading printed again over a continued table ------------------------------------------------------


def test_exemplars_under_a_repeated_heading_continue_their_indicator(built: Documents) -> None:
    measurement = built["measurement"]
    assert measurement.item("B2.3.3.1.2").notes == NOTES_COMPARE
    assert measurement.locator("B2.3.3.1.2")["pages"] == [2, 3]
    assert measurement.locator("B2.3.3.1.2")["printedPages"] == ["1", "2"]
    assert measurement.parent_code("B2.3.3.2.1") == "B2.3.3.2"
    sub_strands = [item for item in measurement.view.items if item.statement_type == "Sub-Strand"]
    assert [item.description for item in sub_strands] == ["Measurement"]  # the repeated heading is the same one
    assert not measurement.findings("source_mapping_gap")
    assert measurement.findings(warnings=True) == []


# -- 13. served: the page a standard is printed on -----------------------------------------------------------


@pytest.fixture(scope="module")
def served(built: Documents, tmp_path_factory: pytest.TempPathFactory, profiles_root: Path) -> AppState:
    """Two documents the operator reviewed and one not, written, validated and served in process."""
    root = tmp_path_factory.mktemp("nacca-quirks-served")
    reviewed = [built[name].content for name in ("spaced", "measurement")]
    contents = [*reviewed, built["french"].content]  # the French one without a review: its text is withheld
    write_and_validate(contents, profiles_root, root)
    ids = [f"{content.framework_id}@{content.snapshot_id}" for content in reviewed]
    rights = record_reviews(operator_rights_beside(root), ids, APPROVED)
    cache = tmp_path_factory.mktemp("nacca-quirks-cache")
    return build_app_state(
        load_settings({"graph_packages_dir": root, "cache_dir": cache, "operator_rights_file": rights})
    )


async def _get_standard(state: AppState, built: Built, code: str) -> tuple[dict[str, Any], str]:
    """``get_standard`` by code: the structured content and the first text block."""
    async with Client(create_app(state)) as client:
        result = await call(client, "get_standard", {"frameworkId": built.content.framework_id, "statementCode": code})
    return structured(result), texts(result)[0]


@pytest.mark.parametrize(
    ("case", "code", "pages", "printed"),
    [("spaced", "B1.1.6.1.1", [2], ["1"]), ("measurement", "B2.3.3.1.2", [2, 3], ["1", "2"])],
    ids=["one-page", "over-a-page-break"],
)
async def test_get_standard_cites_the_file_and_the_printed_pages(
    served: AppState, built: Documents, case: str, code: str, pages: list[int], printed: list[str]
) -> None:
    document = built[case].pdf.path.name
    answer, text = await _get_standard(served, built[case], code)
    standard = answer["standard"]
    assert standard["sourceLocation"] == {"document": document, "pages": pages, "printedPages": printed}
    assert standard["description"] == built[case].item(code).description
    plural = "s" if len(pages) > 1 else ""
    page_list, printed_list = ", ".join(str(p) for p in pages), ", ".join(printed)
    assert f"Printed in: {document}, page{plural} {page_list} (printed page{plural} {printed_list})." in text
    assert "textWithheld" not in answer["package"]


async def test_without_a_review_the_text_is_withheld_but_the_page_is_given(served: AppState, built: Documents) -> None:
    french = built["french"]
    answer, text = await _get_standard(served, french, "B4.1.1.1.1")
    standard = answer["standard"]
    assert "description" not in standard and "notes" not in standard
    assert answer["package"]["textWithheld"]["code"] == "full_text_not_permitted"
    assert standard["sourceLocation"] == {"document": "french.pdf", "pages": [2], "printedPages": ["1"]}
    assert "Printed in: french.pdf, page 2 (printed page 1)." in text
    assert IND_FRENCH not in text and "Dire bonjour" not in text
