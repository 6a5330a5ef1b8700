"""A code-table layout, declared as data: where the header and columns are, what each digit of the code means.

A code table (MEXT's 学習指導要領コード表 is one) lists every text unit of a curriculum with a fixed-length
code whose digits carry the unit's place: school stage, subject, grade, and the numbers of the headings above
it. The importer reads any table through one of these and knows nothing else about the publisher: which
header cell marks the header row, which digit is the grade and what its values mean per school stage, in
which order the digits nest, and which printed headings (第N章, 第N節) place a row by the document's own
structure. MEXT's layout is ``shipped/layouts/mext-course-of-study.json``; a new stage or a table of another
notification period is an entry there, not a branch in the code.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from kgfegmcp.core.models import ContractModel
from kgfegmcp.sources.layout_files import Regex, load_layout_file

#: How a row that prints a heading is placed: as a top-level division of the document, under the nearest
#: preceding heading of an earlier-declared kind, or by its code like any other row.
Placement = Literal["top", "underPrecedingHeading", "byCode"]


class Columns(ContractModel):
    """The header text of each column the importer reads (matched after removing spaces)."""

    subject: str = Field(min_length=1, max_length=64)
    number: str = Field(min_length=1, max_length=64)
    text: str = Field(min_length=1, max_length=64)
    code: str = Field(min_length=1, max_length=64)


class CodeDigits(ContractModel):
    """The code's shape and the 1-based positions of the digits with a meaning of their own."""

    length: int = Field(ge=4, le=64)
    alphabet: Regex = Field(description="The whole code must match it (case-sensitive).")
    zero: str = Field(min_length=1, max_length=1, description="The digit that means 'no value at this level'.")
    school_type_digit: int = Field(ge=1)
    subject_digit: int = Field(ge=1)
    grade_digit: int = Field(ge=1)
    revision_digit: int | None = Field(default=None, ge=1)
    levels: tuple[int, ...] = Field(
        min_length=1, description="The level digits in the order they nest, outermost first."
    )

    @model_validator(mode="after")
    def _positions_fit(self) -> CodeDigits:
        positions = (self.school_type_digit, self.subject_digit, self.grade_digit, *self.levels)
        if self.revision_digit is not None:
            positions = (*positions, self.revision_digit)
        if any(p > self.length for p in positions):
            raise ValueError(f"a digit position exceeds the code length {self.length}")
        if len(set(self.levels)) != len(self.levels):
            raise ValueError("a level digit is listed twice")
        if self.grade_digit not in self.levels or self.subject_digit not in self.levels:
            raise ValueError("the grade and subject digits must be level digits")
        return self


class ProfileBinding(ContractModel):
    """The interpretation profile the built package binds."""

    profile_id: str = Field(min_length=1, max_length=128)
    version: str = Field(min_length=1, max_length=32)


class Stage(ContractModel):
    """One school stage, named by a value of the school-type digit."""

    stage: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=48, description="Used in the framework id.")
    name: str = Field(min_length=1, max_length=64, description="The stage as the publisher names it.")
    profile: ProfileBinding
    grades: dict[str, tuple[str, ...]] = Field(
        description="Grade-digit value → the grade labels it stands for (a range names several); the zero digit "
        "and values not listed stand for none."
    )


class Heading(ContractModel):
    """A printed heading kind (第N章 …) whose rows are typed and, unless ``byCode``, placed by the document."""

    pattern: Regex
    statement_type: str = Field(min_length=1, max_length=64)
    placement: Placement


class CodeTableLayout(ContractModel):
    """One publisher's code-table layout."""

    layout_id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)
    title: str = Field(min_length=1, max_length=256, description="What the layout reads (not a table's title).")
    publisher: str = Field(min_length=1, max_length=512)
    jurisdiction: str = Field(min_length=1, max_length=128)
    in_language: str = Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
    source_uri: str = Field(min_length=1, max_length=512)
    header_marker: str = Field(min_length=1, max_length=64, description="A cell only the header row holds.")
    columns: Columns
    table_title: Regex = Field(description="The table's title cell; groups 'table' (its id), 'name' and 'version'.")
    framework_id: str = Field(description="Pattern of the framework id: {stage}.")
    snapshot_id: str = Field(description="Pattern of the snapshot id: {table}, {version}.")
    code: CodeDigits
    stages: dict[str, Stage] = Field(min_length=1, description="School-type digit value → stage.")
    headings: tuple[Heading, ...]
    digit_types: dict[str, str] = Field(description="Level digit → the statement type of a row it ends at.")
    item_type: str = Field(min_length=1, max_length=64, description="The type of a row ending at a deeper digit.")

    @cached_property
    def heading_patterns(self) -> tuple[tuple[re.Pattern[str], Heading], ...]:
        """Each heading kind with its compiled pattern, in declared (outermost first) order."""
        return tuple((re.compile(h.pattern), h) for h in self.headings)

    @cached_property
    def title_pattern(self) -> re.Pattern[str]:
        return re.compile(self.table_title)

    @cached_property
    def code_pattern(self) -> re.Pattern[str]:
        return re.compile(self.code.alphabet)


def load_code_table_layout(name_or_path: str | Path) -> CodeTableLayout:
    """A shipped layout by id (``mext-course-of-study``) or a layout file; ``configuration_error`` when unusable."""
    return load_layout_file(name_or_path, CodeTableLayout)
