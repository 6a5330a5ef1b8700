"""A table-PDF curriculum layout, declared as data: column roles, the code grammar, headings, page furniture.

The importer reads a published curriculum document through one of these and knows nothing else about it:
which column holds the content standards, what a code looks like, how a strand heading is printed, which
glyphs are bullets. NaCCA's 2019 layout is ``shipped/layouts/nacca-2019.json``; another publisher's
three-column curriculum is another file, not another branch in the code.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field

from kgfegmcp.core.models import ContractModel
from kgfegmcp.sources.layout_files import Regex, load_layout_file

#: What a table column holds.
ColumnRole = Literal["contentStandard", "indicator", "exemplar", "competency"]
#: The levels a layout names statement types for, in hierarchy order below the framework.
Level = Literal["strand", "subStrand", "contentStandard", "indicator"]


class ProfileBinding(ContractModel):
    """The interpretation profile the built packages bind."""

    profile_id: str = Field(min_length=1, max_length=128)
    version: str = Field(min_length=1, max_length=32)


class TitlePage(ContractModel):
    """How the document names itself on its first pages (line patterns, matched case-sensitively)."""

    pages: int = Field(ge=1, le=10, description="How many leading pages are read for the title.")
    subject: Regex = Field(description="A line naming the subject; group 'subject'. The line before 'curriculum'.")
    curriculum: Regex = Field(description="The 'CURRICULUM FOR … SCHOOLS' line; group 'schools'.")
    levels: Regex = Field(description="The levels line, '(BASIC 1 - 3)'; group 'levels'.")
    date: Regex = Field(description="The publication date line; groups 'month' and 'year'.")


class ColumnRule(ContractModel):
    """A table column's role, recognised by its header text (searched, case-insensitively)."""

    role: ColumnRole
    header: Regex


class CodeGrammar(ContractModel):
    """Statement codes: named groups grade, year, strand, subStrand, standard (and indicator)."""

    content_standard: Regex
    indicator: Regex
    terminator: Regex = Field(description="What may follow a code before its text (punctuation, a space).")
    canonical: str = Field(description="The content-standard code written from its groups.")
    canonical_indicator: str = Field(description="The indicator code written from its groups.")


class GradeRule(ContractModel):
    """The grade label a code's grade prefix and year give ('B' and 1 → 'Basic 1')."""

    code_prefix: str = Field(min_length=1, max_length=8)
    label: str = Field(min_length=1, max_length=64)


class Headings(ContractModel):
    """Heading lines outside the tables: a grade, a strand and a sub-strand (groups year / number, name)."""

    grade: Regex
    strand: Regex
    sub_strand: Regex


class StatementTypes(ContractModel):
    """The statement type each level is given, as the publisher names it."""

    strand: str = Field(min_length=1, max_length=128)
    sub_strand: str = Field(min_length=1, max_length=128)
    content_standard: str = Field(min_length=1, max_length=128)
    indicator: str = Field(min_length=1, max_length=128)

    def of(self, level: Level) -> str:
        """The statement type of ``level``."""
        return {
            "strand": self.strand,
            "subStrand": self.sub_strand,
            "contentStandard": self.content_standard,
            "indicator": self.indicator,
        }[level]


class CurriculumPdfLayout(ContractModel):
    """One publisher's table layout of a curriculum document."""

    layout_id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)
    title: str = Field(min_length=1, max_length=256)
    publisher: str = Field(min_length=1, max_length=512)
    jurisdiction: str = Field(min_length=1, max_length=128)
    in_language: str = Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
    subject_languages: dict[str, str] = Field(
        default_factory=dict,
        description="A subject (as its title page prints it) whose statements are in another language.",
    )
    profile: ProfileBinding
    framework_id: str = Field(description="Pattern of the framework id: {schools}, {subject}, {levels}.")
    title_page: TitlePage
    columns: tuple[ColumnRule, ...] = Field(min_length=2)
    required_columns: tuple[ColumnRole, ...] = Field(min_length=1)
    codes: CodeGrammar
    grades: tuple[GradeRule, ...] = Field(min_length=1)
    headings: Headings
    statement_types: StatementTypes
    bullets: tuple[str, ...]
    exemplar_start: Regex = Field(description="A line that starts an indicator's exemplars.")
    continuation_marker: Regex = Field(description="A mark ending a repeated cell ('CONT'D').")
    cell_labels: tuple[Regex, ...] = Field(
        description="Lines in a statement column that label it, not text (a sub-strand number printed over a "
        "continued table)."
    )
    furniture: tuple[Regex, ...] = Field(description="Lines outside the tables that are never text (©, page numbers).")

    @cached_property
    def content_standard_code(self) -> re.Pattern[str]:
        """A content-standard code at the start of a line, with what may follow it."""
        return re.compile(f"(?:{self.codes.content_standard}){self.codes.terminator}")

    @cached_property
    def indicator_code(self) -> re.Pattern[str]:
        """An indicator code at the start of a line, with what may follow it."""
        return re.compile(f"(?:{self.codes.indicator}){self.codes.terminator}")

    @cached_property
    def header_patterns(self) -> tuple[tuple[ColumnRole, re.Pattern[str]], ...]:
        """Each column role with its compiled header pattern, in declared order."""
        return tuple((rule.role, re.compile(rule.header, re.IGNORECASE)) for rule in self.columns)

    @cached_property
    def cell_label_patterns(self) -> tuple[re.Pattern[str], ...]:
        """Compiled cell-label patterns (matched case-insensitively)."""
        return tuple(re.compile(p, re.IGNORECASE) for p in self.cell_labels)

    @cached_property
    def furniture_patterns(self) -> tuple[re.Pattern[str], ...]:
        """Compiled furniture patterns."""
        return tuple(re.compile(p) for p in self.furniture)

    def grade_label(self, prefix: str, year: str) -> str | None:
        """The grade label of a code's grade prefix and year, or ``None`` for a prefix the layout does not know."""
        for rule in self.grades:
            if rule.code_prefix == prefix:
                return rule.label.format(year=int(year))
        return None


def load_layout(name_or_path: str | Path) -> CurriculumPdfLayout:
    """A shipped layout by id (``nacca-2019``) or a layout file; ``configuration_error`` when unusable."""
    return load_layout_file(name_or_path, CurriculumPdfLayout)
