"""Detailed copies of the delivery records: the framework, its items, hasChild and the bundle."""

from __future__ import annotations

from kgfegmcp.packages.checks.detailed_artifact import DOCUMENT_CODES, LINE_CODES, DetailedArtifactCheck
from kgfegmcp.packages.finding_codes import FindingCode
from kgfegmcp.packages.records import HAS_CHILD


class FrameworkDocumentCheck(DetailedArtifactCheck):
    """Resources serve the framework document; it must describe the framework the nodes deliver."""

    codes = DOCUMENT_CODES

    def run(self) -> None:
        document = self.document("standardsFramework")
        framework = self.content.framework
        if (
            document is not None
            and framework is not None
            and document.get("framework", {}).get("caseIdentifierUUID") != framework.case_identifier_uuid
        ):
            self.mismatch("standardsFramework", "framework caseIdentifierUUID differs from the nodes artifact")


class ItemLinesCheck(DetailedArtifactCheck):
    """Item resources read the detailed item lines, which must be the delivered items in their order."""

    codes = (*LINE_CODES, FindingCode.DETAILED_ARTIFACT_MISMATCH)

    def run(self) -> None:
        ids = self.line_ids("standardsFrameworkItems", "caseIdentifierUUID")
        if ids is not None and ids != [item.case_identifier_uuid for item in self.content.items]:
            self.mismatch("standardsFrameworkItems", "items differ from the nodes artifact (ids or order)")


class HasChildLinesCheck(DetailedArtifactCheck):
    """The detailed hasChild lines must be exactly the delivered hasChild relationships, in order."""

    codes = (*LINE_CODES, FindingCode.DETAILED_ARTIFACT_MISMATCH)

    def run(self) -> None:
        ids = self.line_ids("relationshipsHasChild", "identifier")
        expected = [rel.identifier for rel in self.content.relationships if rel.label == HAS_CHILD]
        if ids is not None and ids != expected:
            self.mismatch("relationshipsHasChild", "hasChild records differ from the relationships artifact")


class BundleCheck(DetailedArtifactCheck):
    """The bulk bundle must hold the delivered items, in order, so a bulk reader sees the same package."""

    codes = DOCUMENT_CODES

    def run(self) -> None:
        document = self.document("academicStandardsBundle")
        if document is None:
            return
        items = document.get("items")
        if not isinstance(items, list) or [i.get("caseIdentifierUUID") for i in items if isinstance(i, dict)] != [
            item.case_identifier_uuid for item in self.content.items
        ]:
            self.mismatch("academicStandardsBundle", "bundle items differ from the nodes artifact")
