"""One code table onto one graph package: every row an item, placed where its code says.

One package per table, not per subject: a table is one Course of Study (one 告示 for one school stage), its
総則 and chapters apply across subjects, and its subjects stay findable as each item's ``academicSubject``
(the 教科等 column) and as the 節 items they sit under. Items keep the row's text exactly, its code as the
statement code, its grades from the grade digit; the statement type names the level the code ends at (or the
printed heading it is). Everything is ``source_extracted``: read from the official file by a deterministic
reader, each parent link saying how it was found.
"""

from __future__ import annotations

from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import identifier_problem, stable_uuid
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo, UpstreamChecksum
from kgfegmcp.packages.records import HAS_CHILD, FrameworkNode
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.code_table.hierarchy import CodeHierarchy, Placement
from kgfegmcp.sources.code_table.layout import CodeTableLayout, Stage
from kgfegmcp.sources.code_table.table import CodeRow, CodeTable
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, slugify

_LISTED = 12  # rows named in one finding
#: How each placement is described in a parent link's provenance.
PLACEMENT_RULES = {
    "heading": "the document's heading order (a chapter is a top division; a section sits under its chapter)",
    "code": "the deepest ancestor code in the table (levels zeroed in the layout's nesting order)",
    "code-following": "the deepest ancestor code in the table, which the table lists after this row",
    "list": "a decimal list counted over several digits: a sibling of the row before it",
    "chapter": "no ancestor code in the table: placed under its chapter",
}


class CodeTableMapping:
    """Builds the package of one table read through one layout."""

    def __init__(self, table: CodeTable, layout: CodeTableLayout, profiles: ProfileRepository) -> None:
        self.table = table
        self.layout = layout
        self.stage = self._stage()
        self.profile = profiles.load(self.stage.profile.profile_id, self.stage.profile.version)
        self.framework_id = self._identifier(layout.framework_id.format(stage=self.stage.stage), "framework id")
        self.snapshot_id = self._identifier(
            layout.snapshot_id.format(table=table.table_id, version=table.version), "snapshot id"
        )

    def _stage(self) -> Stage:
        digit = self.layout.code.school_type_digit - 1
        values = sorted({row.code[digit] for row in self.table.rows})
        if len(values) != 1:
            raise ManifestBuildError(
                f"{self.table.file_name}: rows of several school types ({', '.join(values)}) in one table.",
                hint="Give one table per school stage, as the publisher releases them.",
            )
        stage = self.layout.stages.get(values[0])
        if stage is None:
            raise ManifestBuildError(
                f"{self.table.file_name}: school-type digit {values[0]!r} is not a stage of layout "
                f"{self.layout.layout_id} (it declares {', '.join(sorted(self.layout.stages))}).",
                hint="Declare the stage (its name, profile and grade digits) in the layout, then rebuild.",
            )
        return stage

    def _identifier(self, text: str, kind: str) -> str:
        slug = slugify(text)
        problem = identifier_problem(slug, kind)
        if problem is not None:
            raise ManifestBuildError(f"Cannot name the package of {self.table.file_name}: {problem}.")
        return slug

    # -- provenance ------------------------------------------------------------------------------------

    def _dataset(self) -> dict[str, str]:
        return {"name": f"{self.table.table_id} {self.table.name}", "version": self.table.version}

    def _locator(self, row: CodeRow, **extra: Any) -> dict[str, Any]:
        return {
            "datasetFile": self.table.file_name,
            "sha256": self.table.sha256,
            "sheet": self.table.sheet,
            "row": row.sheet_row,
            "number": row.number,
            "code": row.code,
            **extra,
        }

    def _provenance(self, row: CodeRow) -> Provenance:
        return {"epistemicStatus": "source_extracted", "dataset": self._dataset(), "locator": self._locator(row)}

    # -- the package -----------------------------------------------------------------------------------

    def statement_type(self, row: CodeRow, hierarchy: CodeHierarchy, index: int) -> str:
        """The printed heading's type, else the type of the level digit the code ends at."""
        heading = hierarchy.heading(index)
        if heading is not None:
            return heading.statement_type
        zero = self.layout.code.zero
        ends = [p for p in self.layout.code.levels if row.code[p - 1] != zero]
        if not ends:
            return self.layout.item_type
        deepest = max(ends, key=self.layout.code.levels.index)
        return self.layout.digit_types.get(str(deepest), self.layout.item_type)

    def grades(self, row: CodeRow) -> tuple[str, ...]:
        return self.stage.grades.get(row.code[self.layout.code.grade_digit - 1], ())

    def run(self) -> PackageContent:
        table, layout, profile = self.table, self.layout, self.profile
        rights = profile.profile.default_rights
        title = table.name
        root = stable_uuid(self.framework_id, "framework")
        subjects = list(dict.fromkeys(row.subject for row in table.rows))
        builder = PackageGraphBuilder(
            self.framework_id,
            profile,
            FrameworkNode(
                identifier=root,
                case_identifier_uuid=root,
                name=title,
                jurisdiction=layout.jurisdiction,
                academic_subject="、".join(subjects),
                in_language=layout.in_language,
                author=layout.publisher,
                provider=layout.publisher,
                license=rights.source_license,
                attribution_statement=rights.attribution_statement,
                case_identifier_uri=layout.source_uri,
            ),
            {
                "epistemicStatus": "source_extracted",
                "dataset": self._dataset(),
                "locator": {
                    "datasetFile": table.file_name,
                    "sha256": table.sha256,
                    "sheet": table.sheet,
                    "title": table.title,
                    "headerRow": table.header_row,
                    "rows": len(table.rows),
                    "layout": layout.layout_id,
                },
            },
        )
        hierarchy = CodeHierarchy(layout, self.stage, table.rows)
        ids = [self._add_item(builder, row, hierarchy, index) for index, row in enumerate(table.rows)]
        placements = hierarchy.place()
        for index, (row, placement) in enumerate(zip(table.rows, placements, strict=True)):
            parent = builder.root_id if placement.parent is None else ids[placement.parent]
            builder.link(HAS_CHILD, parent, ids[index], self._edge_provenance(row, placement))
        builder.derive_grouping_grades()
        self._report(builder, placements)
        return builder.content(
            snapshot_id=self.snapshot_id,
            title=title,
            subject_slug=slugify(self.stage.stage),
            source=SourceInfo(
                name=f"{table.table_id} {table.name}",
                version=table.version,
                uri=layout.source_uri,
                upstream_checksums=(UpstreamChecksum(file=table.file_name, algorithm="sha256", value=table.sha256),),
                datasets=(
                    SourceDataset(
                        name=table.title,
                        version=table.version,
                        uri=layout.source_uri,
                        license=rights.source_license,
                        role=f"every row of the code table ({len(table.rows)} rows, {len(subjects)} 教科等): text, "
                        "code, subject; hierarchy, grades and statement types derived from the codes",
                    ),
                ),
            ),
            rights=rights,
        )

    def _add_item(self, builder: PackageGraphBuilder, row: CodeRow, hierarchy: CodeHierarchy, index: int) -> str:
        return builder.add_item(
            row.code,
            description=row.text,
            statement_type=self.statement_type(row, hierarchy, index),
            provenance=self._provenance(row),
            grades=self.grades(row),
            statement_code=row.code,
            academic_subject=row.subject,
            details={"codeTable": {"table": self.table.table_id, "number": row.number, "subject": row.subject}},
        )

    def _edge_provenance(self, row: CodeRow, placement: Placement) -> Provenance:
        return {
            "epistemicStatus": "source_extracted",
            "dataset": self._dataset(),
            "locator": self._locator(row, field="parent"),
            "derivation": {
                "rule": PLACEMENT_RULES[placement.placed_by],
                "placedBy": placement.placed_by,
                "layout": self.layout.layout_id,
            },
        }

    def _report(self, builder: PackageGraphBuilder, placements: list[Placement]) -> None:
        """Rows the code alone could not place inside their chapter, and codes stored as numbers."""
        rows = self.table.rows
        for kind in ("code-following", "chapter"):
            odd = [rows[i] for i, p in enumerate(placements) if p.placed_by == kind]
            if odd:
                named = ", ".join(f"row {r.sheet_row} ({r.code})" for r in odd[:_LISTED])
                more = f" and {len(odd) - _LISTED} more" if len(odd) > _LISTED else ""
                builder.add_finding(
                    FindingCode.SOURCE_VARIANT_ACCEPTED,
                    "warning",
                    f"{len(odd)} row(s) of {self.table.file_name} placed by {PLACEMENT_RULES[kind]}: {named}{more}.",
                    location=self.table.file_name,
                )
        if self.table.numeric_codes:
            named = ", ".join(str(r) for r in self.table.numeric_codes[:_LISTED])
            builder.add_finding(
                FindingCode.SOURCE_VARIANT_ACCEPTED,
                "warning",
                f"{len(self.table.numeric_codes)} code cell(s) of {self.table.file_name} are stored as numbers and "
                f"were read as their digits (rows {named}).",
                location=self.table.file_name,
            )
