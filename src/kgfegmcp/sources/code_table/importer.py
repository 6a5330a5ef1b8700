"""``--source mext-code-table FILE.xlsx``: one curriculum code table → one pending package, read through a layout.

*Read* is :func:`~kgfegmcp.sources.code_table.table.read_code_table`; *map* is
:class:`~kgfegmcp.sources.code_table.mapping.CodeTableMapping`. The layout (header, columns, what each code
digit means, the stages and their profiles) is data; a subclass only names it. The rights come from the
stage's profile: MEXT states them (Public Data License v1.0), so no operator review is asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.identifiers import named_package_id
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.code_table.layout import CodeTableLayout, load_code_table_layout
from kgfegmcp.sources.code_table.mapping import CodeTableMapping
from kgfegmcp.sources.code_table.table import CodeTable, read_code_table
from kgfegmcp.sources.importer import ProgressCallback, SourceImporter


class CodeTableSource(SourceImporter[CodeTable]):
    """A code table in a declared layout; a subclass names its layout (one line of data, no code)."""

    name = "code-table"
    memory_hint = "Give the code table as the .xlsx file the publisher releases (one table per file)."
    layout_id: ClassVar[str]

    def __init__(self, layout: CodeTableLayout | None = None) -> None:
        self._layout = layout

    @property
    def layout(self) -> CodeTableLayout:
        """The layout tables of this source are read through."""
        if self._layout is None:
            self._layout = load_code_table_layout(self.layout_id)
        return self._layout

    @contextmanager
    def read(self, source_input: Path | None, report: ProgressCallback) -> Iterator[CodeTable]:
        """Read the table given to ``packages build``."""
        if source_input is None:
            raise ManifestBuildError(
                f"The {self.name} source needs a code table file (.xlsx).",
                hint=f"Run `kgfegmcp packages build --source {self.name} FILE.xlsx`.",
            )
        report(f"reading {source_input.name}")
        yield read_code_table(source_input, self.layout)

    def map(self, source: CodeTable, profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        """The one package of the table."""
        mapping = CodeTableMapping(source, self.layout, profiles)
        report(f"building {named_package_id(mapping.framework_id, mapping.snapshot_id)}")
        return [mapping.run()]


class MextCodeTableSource(CodeTableSource):
    """``--source mext-code-table``: MEXT's Course of Study code tables (学習指導要領コード表, Japan)."""

    name = "mext-code-table"
    layout_id = "mext-course-of-study"
