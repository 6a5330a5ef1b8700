"""The learning-component collection: each document has its shape and speaks only of this package's components."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.models import ContractModel
from kgfegmcp.packages.checks.carried_fields import first_difference, typed_difference
from kgfegmcp.packages.checks.detailed_artifact import CARRIED_CODES, DOCUMENT_CODES, DetailedArtifactCheck
from kgfegmcp.packages.encoder import relationship_wire
from kgfegmcp.packages.findings import ValidationReport
from kgfegmcp.packages.lc_artifacts import DedupGroups, GenerationSummary, grouped_twice, normalized_text
from kgfegmcp.packages.records import SUPPORTS, ComponentNode


class LearningComponentArtifactCheck(DetailedArtifactCheck):
    """Labels and answers about components are read from these documents, so they must agree with the graph.

    Presence and checksums are the manifest's and the reader's business; here each present document
    is read whole (they are bounded by the component count) and compared with the delivery records.
    """

    codes = (
        *DOCUMENT_CODES,
        *CARRIED_CODES,
        FindingCode.LC_ARTIFACT_MISMATCH,
        FindingCode.LC_DEDUP_OVERLAP,
        FindingCode.LC_GENERATION_COUNT_MISMATCH,
    )

    def run(self) -> None:
        if not self.content.components:
            return
        self.components = {c.identifier for c in self.content.components}
        self.supports = [r for r in self.content.relationships if r.label == SUPPORTS]
        self._bundle()
        groups = self._parsed("lcDedupGroups", DedupGroups)
        if isinstance(groups, DedupGroups):
            self._dedup(groups)
        summary = self._parsed("lcGenerationSummary", GenerationSummary)
        if isinstance(summary, GenerationSummary):
            self._summary(summary, groups if isinstance(groups, DedupGroups) else None)
        report = self._parsed("lcValidationReport", ValidationReport)
        if isinstance(report, ValidationReport):
            self._report(report)

    def _lc_mismatch(self, logical_name: str, message: str, location: str | None = None) -> None:
        self.out.add(FindingCode.LC_ARTIFACT_MISMATCH, message, artifact=logical_name, location=location)

    def _parsed(self, logical_name: str, model: type[ContractModel]) -> ContractModel | None:
        """The document as ``model``, or ``None`` (with a finding when it has another shape)."""
        parsed = self.model_document(logical_name, model)
        if not isinstance(parsed, ValidationError):
            return parsed
        first = parsed.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        self._lc_mismatch(logical_name, f"not a {model.__name__}: {where}: {first['msg']}")
        return None

    def _bundle(self) -> None:
        document = self.document("learningComponentBundle")
        if document is None:
            return
        components: Any = document.get("components")
        supports: Any = document.get("supports")
        if not isinstance(components, list) or not isinstance(supports, list):
            self._lc_mismatch("learningComponentBundle", "components and supports must be JSON arrays")
            return
        ids = [c.get("identifier") if isinstance(c, dict) else None for c in components]
        if sorted(map(str, ids)) != sorted(self.components):
            self._lc_mismatch("learningComponentBundle", "components differ from the package's learning components")
        for component in components:
            node = self.nodes.get(str(component.get("identifier"))) if isinstance(component, dict) else None
            if isinstance(node, ComponentNode):
                field = typed_difference(node, component, exact=True)
                if field is not None:
                    self.differs(node, field, "learningComponentBundle", "nodes")
        wired = {s.get("identifier") if isinstance(s, dict) else None for s in supports}
        if len(supports) != len(self.supports) or wired != {r.identifier for r in self.supports}:
            self._lc_mismatch("learningComponentBundle", "supports differ from the package's supports relationships")
        delivered = {r.identifier: r for r in self.supports}
        for copy in supports:  # each written exactly as the delivery writes it
            rel = delivered.get(str(copy.get("identifier"))) if isinstance(copy, dict) else None
            if rel is not None and copy != (wire := relationship_wire(rel)):
                where = first_difference(copy, wire) or "(the record)"
                self.differs(rel, where, "learningComponentBundle", "relationships")

    def _dedup(self, groups: DedupGroups) -> None:
        for group in groups.groups:  # each group states its components' text, normalised
            for identifier in group.component_identifiers:
                node = self.nodes.get(identifier)
                if isinstance(node, ComponentNode) and normalized_text(node.description) != group.normalized_text:
                    self.differs(node, "normalizedText", "lcDedupGroups", "nodes", "the normalised description")
        strangers = sorted({i for g in groups.groups for i in g.component_identifiers} - self.components)
        if strangers:
            self._lc_mismatch(
                "lcDedupGroups", f"{len(strangers)} ids name no learning component of this package", strangers[0]
            )
        repeated = grouped_twice(groups.groups)
        if repeated:
            self.out.add(
                FindingCode.LC_DEDUP_OVERLAP,
                f"{len(repeated)} components are in more than one dedup group",
                artifact="lcDedupGroups",
                location=repeated[0],
            )

    def _report(self, report: ValidationReport) -> None:
        """The component report is recorded with the package's state, so the two must say the same."""
        recorded = self.manifest.validation.status
        if report.status != recorded:
            self._lc_mismatch("lcValidationReport", f"status is {report.status}, the manifest records {recorded}")

    def _summary(self, summary: GenerationSummary, groups: DedupGroups | None) -> None:
        expected = {
            "components": len(self.components),
            "supports": len(self.supports),
            "supportedItems": len({r.target_identifier for r in self.supports}),
        }
        if groups is not None:
            expected["dedupGroups"] = len(groups.groups)
            expected["componentsInDedupGroups"] = sum(len(g.component_identifiers) for g in groups.groups)
        declared = summary.counts.to_wire()
        for name, value in expected.items():
            if declared[name] != value:
                self.out.add(
                    FindingCode.LC_GENERATION_COUNT_MISMATCH,
                    f"counts.{name} declares {declared[name]}, the package has {value}",
                    artifact="lcGenerationSummary",
                )
