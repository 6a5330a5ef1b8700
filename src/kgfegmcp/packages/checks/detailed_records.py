"""Detailed copies of the delivery records: the framework, its items, hasChild and the bundle."""

from __future__ import annotations

from typing import Any

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
        tally = _ItemOrder([item.case_identifier_uuid for item in self.content.items])
        document = self.streamed("academicStandardsBundle", "items", tally.add)
        if document is not None and (document.member_kind != "array" or not tally.equal()):
            self.mismatch("academicStandardsBundle", "bundle items differ from the nodes artifact")


class _ItemOrder:
    """Compares streamed bundle items (the objects among them) with the delivered item ids, in order."""

    def __init__(self, expected: list[str]) -> None:
        self._expected = expected
        self._matched = 0
        self._differs = False

    def add(self, key: str | None, value: Any) -> None:
        if not isinstance(value, dict) or self._differs:
            return
        expected = self._expected
        if self._matched < len(expected) and value.get("caseIdentifierUUID") == expected[self._matched]:
            self._matched += 1
        else:
            self._differs = True

    def equal(self) -> bool:
        return not self._differs and self._matched == len(self._expected)
