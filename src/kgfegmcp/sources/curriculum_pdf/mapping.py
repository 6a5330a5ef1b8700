"""A read curriculum PDF as one package: framework → strands → sub-strands → content standards → indicators.

Each grade's strands and sub-strands are their own grouping nodes, as each grade's pages print them under
their headings; a content standard goes under the sub-strand it is printed under, an indicator under its
content standard. Codes are the printed codes with layout spacing removed (``B1.1. 6.1`` is ``B1.1.6.1``;
the printed form stays in the item's source details); an indicator's exemplars are its notes; the
competencies printed beside it are in its source details. Every provenance record names the PDF's
SHA-256 and the page(s): a host can cite the page.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo, UpstreamChecksum
from kgfegmcp.packages.records import HAS_CHILD, FrameworkNode
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.curriculum_pdf.document import CurriculumPdf
from kgfegmcp.sources.curriculum_pdf.layout import Level
from kgfegmcp.sources.curriculum_pdf.statements import Heading, Statement, comparable
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, slugify

#: The grouping levels, in the order the counts name them.
_GROUPS: tuple[Level, ...] = ("strand", "subStrand")


class CurriculumPdfMapping:
    """Maps one :class:`CurriculumPdf` onto a :class:`PackageGraphBuilder`; :meth:`run` returns the content."""

    def __init__(self, pdf: CurriculumPdf, profiles: ProfileRepository) -> None:
        self._pdf = pdf
        self._layout = pdf.layout
        self._profile = profiles.load(pdf.layout.profile.profile_id, pdf.layout.profile.version)
        # The profile's rights, as every package carries them: the operator's review is recorded outside the package.
        self._rights = self._profile.profile.default_rights
        self._groups: dict[tuple[Any, ...], str] = {}
        self._group_counts: Counter[Level] = Counter()

    def run(self) -> PackageContent:
        """The package content, in reading order."""
        pdf, layout = self._pdf, self._layout
        framework_id = pdf.framework_id
        root = stable_uuid(framework_id, "framework")
        self._builder = builder = PackageGraphBuilder(
            framework_id,
            self._profile,
            FrameworkNode(
                identifier=root,
                case_identifier_uuid=root,
                name=pdf.title.name,
                jurisdiction=layout.jurisdiction,
                academic_subject=pdf.title.subject,
                in_language=pdf.in_language,
                author=layout.publisher,
                provider=f"{layout.publisher} (read from {pdf.file_name} by the {layout.layout_id} PDF layout)",
                license=self._rights.source_license,
                attribution_statement=self._rights.attribution_statement,
                date_created=pdf.title.year,
            ),
            pdf.provenance([1], [], field="title page"),
        )
        items: dict[int, str] = {}
        for statement in pdf.document.statements:
            items[id(statement)] = self._statement(statement, items)
        for finding in pdf.document.findings:
            location = f"page {finding.page}" if finding.page is not None else None
            builder.add_finding(finding.code, finding.severity, finding.message, location)
        builder.add_finding(FindingCode.SOURCE_COUNTS, "info", self._counts(), None)
        title = pdf.title.name
        return builder.content(
            snapshot_id=pdf.snapshot_id,
            title=title,
            subject_slug=slugify(pdf.title.subject),
            source=SourceInfo(
                name=layout.publisher[:256],
                version=pdf.title.year or "undated",
                uri=None,
                upstream_checksums=(UpstreamChecksum(file=pdf.file_name, algorithm="sha256", value=pdf.sha256),),
                datasets=(
                    SourceDataset(
                        name=pdf.file_name,
                        version=pdf.sha256[:12],
                        license=self._rights.source_license,
                        role=f"{title} ({pdf.page_count} pages), read by the {layout.layout_id} layout",
                    ),
                ),
            ),
            rights=self._rights,
        )

    def _statement(self, statement: Statement, items: dict[int, str]) -> str:
        builder, pdf, layout = self._builder, self._pdf, self._layout
        details: dict[str, Any] = {"pages": statement.pages}
        if statement.printed_pages:
            details["printedPages"] = statement.printed_pages
        if statement.printed_code != statement.code:
            details["printedCode"] = statement.printed_code
        if statement.competencies:
            details["competencies"] = statement.competencies
        provenance = pdf.provenance(statement.pages, statement.printed_pages, code=statement.printed_code)
        if not statement.text:
            # An item needs a description: the code stands in for text the document does not print, and says so.
            provenance["derivedFields"] = {"description": "no statement text is printed with the code: its code"}
            builder.add_finding(
                FindingCode.SOURCE_MAPPING_GAP,
                "warning",
                f"{statement.code} prints no statement text on p. {statement.pages[0]}; its description is its code.",
                f"page {statement.pages[0]}",
            )
        identifier = builder.add_item(
            statement.key,
            description=statement.text or statement.code,
            statement_type=layout.statement_types.of(statement.level),
            provenance=provenance,
            grades=[statement.grade],
            statement_code=statement.code,
            academic_subject=pdf.title.subject,
            in_language=pdf.in_language,
            notes="\n".join(statement.exemplars) or None,
            details={"curriculumPdf": details},
        )
        if statement.level == "indicator" and statement.parent is not None:
            parent = items[id(statement.parent)]
        else:
            parent = self._sub_strand(statement)
        builder.link(
            HAS_CHILD,
            parent,
            identifier,
            pdf.provenance(statement.pages[:1], statement.printed_pages[:1], field="printed under"),
        )
        return identifier

    def _group(
        self,
        key: tuple[Any, ...],
        level: Level,
        heading: Heading | None,
        number: int,
        statement: Statement,
        parent: str,
    ) -> str:
        """The strand or sub-strand node of one grade, made (under ``parent``) at the first statement printed under
        it; a group whose heading is not printed is named from the codes, and reported once."""
        found = self._groups.get(key)
        if found is not None:
            self._builder.add_grades(found, [statement.grade])
            return found
        pdf = self._pdf
        kind = self._layout.statement_types.of(level)
        pages = [heading.page] if heading else []
        printed = [heading.printed] if heading and heading.printed else []
        provenance = pdf.provenance(pages, printed, heading=f"{kind} {number}")
        if heading is None:
            provenance["derivedFields"] = {"description": "no heading is printed: named from the codes below it"}
            self._builder.add_finding(
                FindingCode.SOURCE_MAPPING_GAP,
                "warning",
                f"No {kind.lower()} heading is printed before {statement.code}; its {kind.lower()} is named from "
                "its code.",
                f"page {statement.pages[0]}",
            )
        identifier = self._builder.add_item(
            "/".join(str(part) for part in key),
            description=heading.name if heading else f"{kind} {number}",
            statement_type=kind,
            provenance=provenance,
            grades=[statement.grade],
            academic_subject=pdf.title.subject,
            in_language=pdf.in_language,
            details={"curriculumPdf": {"number": number, "pages": pages}},
        )
        self._builder.link(HAS_CHILD, parent, identifier, pdf.provenance(pages, [], field="printed under"))
        self._groups[key] = identifier
        self._group_counts[level] += 1
        return identifier

    def _sub_strand(self, statement: Statement) -> str:
        """The sub-strand node a content standard (or a parentless indicator) is printed under."""
        groups = statement.groups
        strand_heading, sub_heading = statement.strand, statement.sub_strand
        strand_number = strand_heading.number if strand_heading and strand_heading.number else int(groups["strand"])
        sub_number = sub_heading.number if sub_heading and sub_heading.number else int(groups["subStrand"])
        strand_key = (
            "strand",
            statement.grade,
            strand_number,
            comparable(strand_heading.name) if strand_heading else "",
        )
        sub_key = (*strand_key, "sub-strand", sub_number, comparable(sub_heading.name) if sub_heading else "")
        strand = self._group(strand_key, "strand", strand_heading, strand_number, statement, self._builder.root_id)
        return self._group(sub_key, "subStrand", sub_heading, sub_number, statement, strand)

    def _counts(self) -> str:
        """The statements read, per statement type and grade."""
        by_type: dict[str, Counter[str]] = {}
        for statement in self._pdf.document.statements:
            by_type.setdefault(self._layout.statement_types.of(statement.level), Counter())[statement.grade] += 1
        order = {g.source_label: g.order for g in self._profile.profile.grade_labels}
        parts = [
            f"{kind}: {sum(grades.values())} ("
            + ", ".join(f"{grade}: {count}" for grade, count in sorted(grades.items(), key=lambda g: order[g[0]]))
            + ")"
            for kind, grades in by_type.items()
        ]
        parts += [f"{self._layout.statement_types.of(level)}: {self._group_counts[level]}" for level in _GROUPS]
        return f"Read from {self._pdf.file_name} ({self._pdf.page_count} pages): " + "; ".join(parts) + "."
